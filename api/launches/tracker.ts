/**
 * The launch tracker: every two seconds, launches sent to the cluster are asked
 * about (confirmed → the agent is made; failed on-chain → failed LAUNCH_FAILED;
 * unknown past their last valid block height → expired EXPIRED), and built
 * transactions nobody submitted before their block height are marked expired.
 * One run at a time across processes (advisory lock).
 */
import { schedule, type ScheduledTask } from "node-cron";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import { LOCKS, withAdvisoryLock } from "../../infra/advisory-lock";
import type { LaunchChain } from "../../infra/solana-tx/chain";
import type { LaunchService } from "./service";

export type TrackResult = { confirmed: number; failed: number; expired: number; pending: number };

export async function trackLaunchesOnce(deps: { sql: Sql; chain: LaunchChain; service: LaunchService }): Promise<TrackResult | null> {
  const run = await withAdvisoryLock(deps.sql, LOCKS.launchTracker, () => track(deps));
  return run.skipped ? null : run.value;
}

async function track({ chain, service }: { chain: LaunchChain; service: LaunchService }): Promise<TrackResult> {
  const out: TrackResult = { confirmed: 0, failed: 0, expired: 0, pending: 0 };
  const open = await service.store.open();
  if (open.length === 0) return out;
  const submitted = open.filter((l) => l.status === "submitted" && l.signature);
  const states = [];
  for (let i = 0; i < submitted.length; i += 256) states.push(...(await chain.signatureStates(submitted.slice(i, i + 256).map((l) => l.signature!))));
  const height = await chain.blockHeight();

  for (const [i, l] of submitted.entries()) {
    const state = states[i];
    if (state?.err) {
      if (await service.failed(l, state.err)) out.failed++;
    } else if (state?.confirmed) {
      if ((await service.confirm(l, ["submitted"])).status === "confirmed") out.confirmed++;
    } else if (!state && height > Number(l.last_valid_block_height)) {
      const moved = await service.store.move(l.id, ["submitted"], "expired", {
        error: { code: "EXPIRED", message: "the transaction can no longer land (past its last valid block height); rebuild it" },
      });
      if (moved) out.expired++;
    } else out.pending++;
  }
  for (const l of open.filter((l) => l.status === "awaiting_signature" && height > Number(l.last_valid_block_height))) {
    const moved = await service.store.move(l.id, ["awaiting_signature"], "expired", {
      error: { code: "EXPIRED", message: "the transaction expired before it was submitted; rebuild it" },
    });
    if (moved) out.expired++;
  }
  return out;
}

export function scheduleLaunchTracker(deps: { sql: Sql; chain: LaunchChain; service: LaunchService; log: Logger }, expression = "*/2 * * * * *"): ScheduledTask {
  return schedule(
    expression,
    () =>
      trackLaunchesOnce(deps)
        .then((r) => {
          if (r && r.confirmed + r.failed + r.expired > 0) deps.log.info("launch tracker", r);
        })
        .catch((err) => deps.log.warn("launch tracker failed", { err: (err as Error).message })),
    { name: "launch-tracker", noOverlap: true },
  );
}
