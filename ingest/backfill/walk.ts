/**
 * One address over one range: getSignaturesForAddress newest → oldest in pages
 * (the `before` cursor), down to `since`. Failed transactions are skipped (no
 * facts), as are those already in transactions (a re-run or an overlap with
 * the webhook costs no getTransaction). The checkpoint advances after each page is
 * stored. While a page is being stored the next one is already fetched: the RPC
 * round trips and the writes overlap, and checkpoints still advance in order (at
 * most two pages are in memory).
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { Sql } from "../../infra/postgres";
import type { Bus, StoredSignatures } from "../contract/bus";
import { advanceCheckpoint, openCheckpoint, type AddressKind, type PageProgress } from "./checkpoint";
import { fetchEnvelopes, publishEnvelopes, type Limiter } from "./fetch";
import type { TxEnvelope } from "../contract/envelope";
import type { ChainReader } from "./rpc";
import { sinceKey, withinRange, type Since } from "./since";

export type BackfillStats = {
  addressesTotal: number;
  addressesDone: number;
  /** addresses whose range a previous run finished (skipped) */
  addressesSkipped: number;
  signatures: number;
  failed: number;
  alreadyStored: number;
  published: number;
  pages: number;
};

export const emptyStats = (): BackfillStats => ({ addressesTotal: 0, addressesDone: 0, addressesSkipped: 0, signatures: 0, failed: 0, alreadyStored: 0, published: 0, pages: 0 });

export type WalkDeps = {
  reader: ChainReader;
  bus: Bus;
  /** the pipelines' answer to "which of these are stored already" */
  stored: StoredSignatures;
  ch: ClickHouse;
  sql: Sql;
  /** bounds getTransaction calls across every address walked at once */
  limit: Limiter;
  stats: BackfillStats;
  /** signatures per getSignaturesForAddress page (RPC maximum 1000) */
  pageSize: number;
  /** skip signatures already in transactions (default true; false re-delivers them, for tests of the downstream dedup) */
  skipStored: boolean;
  /** stop after the page in progress is stored; the checkpoint says where */
  signal?: AbortSignal;
  /**
   * Signatures another walk of this run is fetching or storing (a transaction names
   * several walked addresses). Skipping them is safe: that walk's checkpoint does not
   * pass them until they are stored, so an interruption repeats them there.
   */
  inflight: Set<string>;
  /** the treasury's addresses, walked last */
  treasury: ReadonlySet<string>;
  /**
   * Signatures an earlier walk of this run published whose facts name a treasury address
   * (a partner's fee claim names its config too): the treasury's walk skips them, so with
   * Kafka (nothing stored yet) they are not fetched and sent twice. Bounded by the
   * treasury's own transactions, unlike a set of everything published.
   */
  treasurySeen: Set<string>;
};

/** Whether a transaction's facts name one of `addresses`. */
export function factsName(e: TxEnvelope, addresses: ReadonlySet<string>): boolean {
  if (addresses.size === 0) return false;
  return e.facts.some(
    (f) =>
      (f.kind === "fee_claim" && addresses.has(f.claimer)) ||
      (f.kind === "sol_balance" && addresses.has(f.account)) ||
      (f.kind === "sol_transfer" && (addresses.has(f.from) || addresses.has(f.to))) ||
      (f.kind === "token_balance" && addresses.has(f.owner)) ||
      (f.kind === "burn" && addresses.has(f.authority)),
  );
}

export async function walkAddress(deps: WalkDeps, address: string, kind: AddressKind, since: Since, restart: boolean): Promise<"done" | "skipped" | "stopped"> {
  const key = sinceKey(since);
  const cp = await openCheckpoint(deps.sql, address, key, kind, restart);
  if (cp.done) {
    deps.stats.addressesSkipped++;
    return "skipped";
  }
  let before = cp.before ?? undefined;
  let storing: Promise<void> | null = null;
  try {
    while (!deps.signal?.aborted) {
      const page = await deps.reader.signatures(address, { before, limit: deps.pageSize });
      const cut = page.findIndex((s) => !withinRange(s, since));
      const inRange = cut === -1 ? page : page.slice(0, cut);
      // the end is an empty page, not a short one: some RPC providers return short pages mid-history
      const done = cut !== -1 || page.length === 0;
      const okInfos = inRange.filter((s) => s.err === null || s.err === undefined);
      const ok = okInfos.map((s) => s.signature);
      const known = deps.skipStored ? await deps.stored(okInfos) : new Set<string>();
      // oldest first within a page: a pool's creation is stored before its trades, fewer facts wait parked
      const seen = kind === "treasury" ? deps.treasurySeen : null;
      const todo = ok.filter((s) => !known.has(s) && !deps.inflight.has(s) && !seen?.has(s)).reverse();
      const progress: PageProgress = {
        before: page.length ? page[page.length - 1]!.signature : before ?? null,
        signatures: inRange.length,
        failed: inRange.length - ok.length,
        alreadyStored: ok.length - todo.length,
        published: todo.length,
        done,
      };
      for (const s of todo) deps.inflight.add(s);
      let envelopes: TxEnvelope[];
      try {
        envelopes = await fetchEnvelopes(deps, todo, "backfill");
      } catch (err) {
        for (const s of todo) deps.inflight.delete(s);
        throw err;
      }
      if (kind !== "treasury") for (const e of envelopes) if (factsName(e, deps.treasury)) deps.treasurySeen.add(e.signature);
      if (storing) await storing; // the previous page is stored and checkpointed before this one is
      storing = storePage(deps, address, key, envelopes, progress).finally(() => {
        for (const s of todo) deps.inflight.delete(s);
      });
      storing.catch(() => {}); // awaited below; this only keeps an early failure from being reported as unhandled
      if (done) break;
      before = progress.before ?? undefined;
    }
    if (storing) await storing;
  } catch (err) {
    // let a page being stored finish (or fail) so its checkpoint is not lost, then report the first error
    await storing?.catch(() => {});
    throw err;
  }
  return deps.signal?.aborted && !(await isDone(deps.sql, address, key)) ? "stopped" : "done";
}

async function storePage(deps: WalkDeps, address: string, since: string, envelopes: TxEnvelope[], p: PageProgress): Promise<void> {
  await publishEnvelopes(deps.bus, envelopes);
  await advanceCheckpoint(deps.sql, address, since, p);
  const s = deps.stats;
  s.pages++;
  s.signatures += p.signatures;
  s.failed += p.failed;
  s.alreadyStored += p.alreadyStored;
  s.published += p.published;
}

async function isDone(sql: Sql, address: string, since: string): Promise<boolean> {
  const rows = await sql<{ done: boolean }[]>`SELECT done FROM backfill_checkpoints WHERE address = ${address} AND since = ${since}`;
  return rows[0]?.done === true;
}
