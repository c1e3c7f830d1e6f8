/**
 * RPC backfill: the platform's history from `getSignaturesForAddress` +
 * `getTransaction`, through the webhook's decode path onto the bus.
 *
 * Which addresses: first every platform config (curve trading, pool creations,
 * migrations, partner fee claims all name it); then, read from platform_pools
 * after the configs are stored, the DAMM v2 pools those coins graduated to (their
 * trades and position fee claims name the pool, not the config), and the treasury's
 * addresses (its payouts, buybacks and burns may name no platform address). With `coins`,
 * also each coin's DBC pool (creator fee claims name neither) and mint (burns name
 * only the mint); off by default because a mint's history also holds every
 * transfer of the coin, fetched for nothing.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { Sql } from "../../infra/postgres";
import type { Bus, StoredSignatures } from "../contract/bus";
import type { AddressKind } from "./checkpoint";
import { createLimiter } from "./fetch";
import type { ChainReader } from "./rpc";
import type { Since } from "./since";
import { emptyStats, walkAddress, type BackfillStats } from "./walk";

export { parseSince, sinceKey, type Since } from "./since";
export { createChainReader, type ChainReader } from "./rpc";
export type { BackfillStats } from "./walk";

export type BackfillDeps = { reader: ChainReader; bus: Bus; stored: StoredSignatures; ch: ClickHouse; sql: Sql };

export type BackfillOptions = {
  since: Since;
  /** config addresses to walk; their graduated pools follow */
  configs: string[];
  /** the treasury's addresses (contract/configs.ts treasuryAddresses), walked after the configs */
  treasury?: readonly string[];
  /** pool addresses (from platform_pools) to walk as well */
  pools?: { address: string; kind: AddressKind }[];
  /** also each coin's DBC pool and mint (see above) */
  coins?: boolean;
  /** start finished and unfinished ranges over from the newest signature */
  restart?: boolean;
  skipStored?: boolean;
  pageSize?: number;
  /** getTransaction calls at once (default 8) */
  txConcurrency?: number;
  /** addresses walked at once (default 4) */
  addressConcurrency?: number;
  signal?: AbortSignal;
  /** a live view of the counters, e.g. for a progress line */
  stats?: BackfillStats;
};

export type BackfillResult = { stats: BackfillStats; stopped: boolean };

export async function runBackfill(deps: BackfillDeps, o: BackfillOptions): Promise<BackfillResult> {
  const stats = o.stats ?? emptyStats();
  // One walk failing stops the others after their page in progress, so nothing keeps writing once this returns.
  const halt = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, halt.signal]) : halt.signal;
  const walkDeps = { ...deps, limit: createLimiter(o.txConcurrency ?? 8), stats, pageSize: o.pageSize ?? 1000, skipStored: o.skipStored ?? true, signal, inflight: new Set<string>(), treasury: new Set(o.treasury ?? []), treasurySeen: new Set<string>() };
  const addresses = createLimiter(o.addressConcurrency ?? 4);
  let stopped = false;
  const walkAll = async (targets: { address: string; kind: AddressKind }[]) => {
    stats.addressesTotal += targets.length;
    const outcomes = await Promise.allSettled(
      targets.map((t) =>
        addresses(async () => {
          if (signal.aborted) return void (stopped = true);
          const outcome = await walkAddress(walkDeps, t.address, t.kind, o.since, o.restart ?? false).catch((err) => {
            halt.abort();
            throw err;
          });
          if (outcome === "stopped") stopped = true;
          else stats.addressesDone++;
        }),
      ),
    );
    const failed = outcomes.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  };

  await walkAll([...new Set(o.configs)].map((address) => ({ address, kind: "config" as const })));
  const later = new Map<string, AddressKind>();
  for (const p of o.pools ?? []) later.set(p.address, p.kind);
  for (const t of o.treasury ?? []) if (!later.has(t)) later.set(t, "treasury");
  if (o.configs.length) {
    const rows = await deps.sql<{ address: string; mint: string; venue: "dbc" | "damm_v2" }[]>`
      SELECT address, mint, venue FROM platform_pools WHERE config = ANY(${o.configs}::text[]) ORDER BY address`;
    for (const r of rows) {
      if (r.venue === "damm_v2") later.set(r.address, "damm_v2");
      else if (o.coins) {
        later.set(r.address, "dbc");
        later.set(r.mint, "mint");
      }
    }
  }
  if (!signal.aborted) await walkAll([...later].map(([address, kind]) => ({ address, kind })));
  return { stats, stopped: stopped || signal.aborted };
}
