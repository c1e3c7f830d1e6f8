/**
 * Reconciliation: webhooks are at-least-once only while Helius keeps retrying; a
 * delivery it gave up on is a gap. Every two minutes the most recent signatures of
 * each platform address (configs, the DAMM v2 pools their coins graduated to, and the
 * treasury's addresses) are compared with transactions, and the missing transactions are fetched
 * over RPC and ingested through the webhook's decode path (source "reconcile"). The
 * mints whose balances those transactions moved are handed to `onHealed` (the holder
 * reconciliation: a missed transaction may hide transfers of other days).
 *
 * One run at a time across every process: a Postgres advisory lock held on a
 * reserved connection (session locks belong to a connection, not to the pool). A
 * process that does not get it skips the run.
 */
import { schedule, type ScheduledTask } from "node-cron";
import { LOCKS, withAdvisoryLock } from "../../infra/advisory-lock";
import type { ClickHouse } from "../../infra/clickhouse";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import type { Bus, StoredSignatures } from "../contract/bus";
import { treasuryAddresses, type ConfigRegistry } from "../contract/configs";
import { toEnvelopes } from "../helius/handle";
import { movedMints } from "../contract/envelope";
import { createLimiter, publishEnvelopes } from "../backfill/fetch";
import type { ChainReader, SignatureInfo } from "../backfill/rpc";

export const RECONCILE_LOCK = LOCKS.reconcile;

export type ReconcileDeps = {
  sql: Sql;
  ch: ClickHouse;
  reader: ChainReader;
  bus: Bus;
  /** the pipelines' answer to "which of these are stored already" */
  stored: StoredSignatures;
  configs: ConfigRegistry;
  /** TREASURY_ADDRESS; the treasury is it and the configs' fee claimers */
  treasuryAddress?: string | null;
  log: Logger;
  /** recent signatures re-read per address (default 200, at most 1000) */
  limit?: number;
  /** younger transactions are left to the webhook, which is probably delivering them right now (default 20 s) */
  minAgeSeconds?: number;
  txConcurrency?: number;
  addressConcurrency?: number;
  /** told the coins whose balances the healed transactions moved (their holders are reconciled over RPC) */
  onHealed?: (mints: string[]) => void;
};

export type ReconcileResult =
  | { skipped: true }
  | { skipped: false; addresses: number; signatures: number; missing: number; ingested: number; fetchFailed: number; ms: number };

export async function reconcileOnce(deps: ReconcileDeps): Promise<ReconcileResult> {
  const run = await withAdvisoryLock(deps.sql, RECONCILE_LOCK, () => reconcileLocked(deps));
  return run.skipped ? { skipped: true } : run.value;
}

async function reconcileLocked(deps: ReconcileDeps): Promise<ReconcileResult> {
  const started = performance.now();
  const configs = deps.configs.all.map((c) => c.address);
  const pools = await deps.sql<{ address: string }[]>`
    SELECT address FROM platform_pools WHERE venue = 'damm_v2' AND config = ANY(${configs}::text[])`;
  const addresses = [...new Set([...configs, ...pools.map((p) => p.address), ...treasuryAddresses(deps.configs, deps.treasuryAddress ?? null)])];
  const limit = Math.min(1000, deps.limit ?? 200);
  const newest = Date.now() / 1000 - (deps.minAgeSeconds ?? 20);
  const perAddress = createLimiter(deps.addressConcurrency ?? 4);

  // Recent successful signatures of every address; a transaction naming several of them is one.
  const recent = new Map<string, SignatureInfo>();
  await Promise.all(
    addresses.map((a) =>
      perAddress(async () => {
        for (const s of await deps.reader.signatures(a, { limit }))
          if ((s.err === null || s.err === undefined) && (s.blockTime === null || s.blockTime <= newest)) recent.set(s.signature, s);
      }),
    ),
  );
  const known = await deps.stored([...recent.values()]);
  // chain order: a pool's creation before its trades, so fewer facts wait parked
  const missing = [...recent.values()].filter((s) => !known.has(s.signature)).sort((a, b) => a.slot - b.slot);

  // One transaction the RPC cannot serve (pruned, not found) must not keep the others from being healed.
  const perTx = createLimiter(deps.txConcurrency ?? 8);
  const fetched = await Promise.allSettled(missing.map((s) => perTx(() => deps.reader.transaction(s.signature))));
  const raws = fetched.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failures = fetched.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failures.length)
    deps.log.warn("reconciliation could not fetch some transactions", { count: failures.length, first: String(failures[0]!.reason?.message ?? failures[0]!.reason) });
  const envelopes = toEnvelopes(raws, "reconcile");
  await publishEnvelopes(deps.bus, envelopes);
  if (deps.onHealed && envelopes.length) {
    const mints = movedMints(envelopes);
    if (mints.length) deps.onHealed(mints);
  }

  const result = {
    skipped: false as const,
    addresses: addresses.length,
    signatures: recent.size,
    missing: missing.length,
    ingested: raws.length,
    fetchFailed: failures.length,
    ms: Math.round(performance.now() - started),
  };
  if (missing.length) deps.log.warn("reconciliation healed missed transactions", result);
  else deps.log.debug("reconciliation found nothing missing", result);
  return result;
}

/** Every two minutes; a run still going when the next is due is not doubled (noOverlap). */
export function scheduleReconciliation(deps: ReconcileDeps, expression = "*/2 * * * *"): ScheduledTask {
  return schedule(
    expression,
    () =>
      reconcileOnce(deps)
        .then(() => undefined)
        .catch((err) => deps.log.warn("reconciliation failed", { err: (err as Error).message })),
    { name: "reconcile", noOverlap: true },
  );
}
