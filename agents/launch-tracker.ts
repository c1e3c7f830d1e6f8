/**
 * The launch tracker: every two seconds, each open launch's transaction is asked about
 * (api/launches/landing.ts): confirmed → the launch and its agent, in one transaction;
 * failed on-chain → failed LAUNCH_FAILED; seen but not confirmed → submitted; unknown to
 * the chain AND past its last valid block height → expired EXPIRED. Never on block height
 * alone: a send whose answer was lost may have landed. Sends refused in preflight are
 * watched for ten minutes in case an earlier send of the same bytes lands. The first run
 * after start also gives confirmed launches without their agent (stored by a version whose
 * confirmation could stop half-way, before it was one transaction) their agent: a scan of
 * every confirmed launch, so not on every run. One run at a time across processes
 * (advisory lock).
 */
import { schedule, type ScheduledTask } from "node-cron";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import { LOCKS, withAdvisoryLock } from "../infra/advisory-lock";
import type { LaunchChain } from "../infra/solana-tx/chain";
import type { LaunchService } from "../api/launches/service";
import { askChain } from "../api/launches/landing";

export type TrackResult = { confirmed: number; failed: number; expired: number; pending: number; repaired: number };

/** `repair`: also look for confirmed launches without their agent (a scan of every confirmed launch: not every run). */
export async function trackLaunchesOnce(deps: { sql: Sql; chain: LaunchChain; service: LaunchService }, o: { repair?: boolean } = {}): Promise<TrackResult | null> {
  const run = await withAdvisoryLock(deps.sql, LOCKS.launchTracker, () => track(deps, o.repair ?? true));
  return run.skipped ? null : run.value;
}

async function track({ chain, service }: { chain: LaunchChain; service: LaunchService }, repair: boolean): Promise<TrackResult> {
  const out: TrackResult = { confirmed: 0, failed: 0, expired: 0, pending: 0, repaired: 0 };
  if (repair) out.repaired = await service.repairAgents();
  const open = await service.store.open();
  if (open.length === 0) return out;
  const verdicts: Awaited<ReturnType<typeof askChain>> = [];
  for (let i = 0; i < open.length; i += 256) verdicts.push(...(await askChain(chain, open.slice(i, i + 256))));

  for (const [i, l] of open.entries()) {
    const v = verdicts[i]!;
    if (v.kind === "failed") {
      if (await service.failed(l, v.err)) out.failed++;
    } else if (v.kind === "confirmed") {
      if ((await service.confirm(l, [l.status])).status === "confirmed") out.confirmed++;
    } else if (v.kind === "in_flight") {
      if (l.status !== "submitted") await service.store.move(l.id, [l.status], "submitted", { error: null });
      out.pending++;
    } else if (v.kind === "gone" && l.status !== "expired") {
      const message = l.signature
        ? "the transaction can no longer land (past its last valid block height, unknown to the chain); rebuild it"
        : "the transaction expired before it was submitted; rebuild it";
      if (await service.store.move(l.id, [l.status], "expired", { error: { code: "EXPIRED", message } })) out.expired++;
    } else if (v.kind === "can_land") out.pending++;
  }
  return out;
}

export function scheduleLaunchTracker(deps: { sql: Sql; chain: LaunchChain; service: LaunchService; log: Logger }, expression = "*/2 * * * * *"): ScheduledTask {
  // confirmations are one transaction now: agents can only be missing from before that
  let repairDone = false;
  return schedule(
    expression,
    () => {
      return trackLaunchesOnce(deps, { repair: !repairDone })
        .then((r) => {
          if (r) repairDone = true; // a run another process held (null) repairs nothing here
          if (r && r.confirmed + r.failed + r.expired + r.repaired > 0) deps.log.info("launch tracker", r);
        })
        .catch((err) => deps.log.warn("launch tracker failed", { err: (err as Error).message }));
    },
    { name: "launch-tracker", noOverlap: true },
  );
}
