/**
 * The exactly-once write, as decisions: pure steps from what arrived, what is stored
 * and what is in flight to what each table receives. sink-write.ts reads the inputs
 * and applies the plan; nothing here touches an engine.
 *
 * 1. `planBatch`: which transactions are written (new, or "suspect": checked table by
 *    table), which are skipped as stored, and how their facts classify (accepted,
 *    parked, dropped, new platform pools, pools shown not to be the platform's).
 * 2. The apply step records the new pools and reads the facts parked for them.
 * 3. `planRows`: the replayed parked facts join in; rows per table (rows certainly new,
 *    and rows of suspect transactions to check first), the treasury's flows read from
 *    each transaction's facts (treasury.ts), ledger rows, agents to create, facts to
 *    park and parked facts to remove.
 */
import type { Fact, PoolCreated } from "../ingest/contract/facts";
import type { TxEnvelope } from "../ingest/contract/envelope";
import type { PlatformConfig } from "../ingest/contract/configs";
import type { PoolEntry } from "./platform/registry";
import { classify, factKey, type Parked } from "./classify";
import { FACT_TABLES, toRows, transactionRow, type FactTable, type Rows, type TransactionRow } from "./rows";
import { treasuryFlows } from "./treasury";

/** What the plan needs to know of the platform's pools and configs, the treasury and the platform token. */
export type PoolView = Parameters<typeof classify>[1] & { configs: { byAddress: ReadonlyMap<string, PlatformConfig> } };

export type BatchPlan = {
  /** every signature of the batch: their in-flight marks are cleared once the write is done */
  signatures: string[];
  /** transactions to write: not in the ledger, or suspect */
  fresh: TxEnvelope[];
  /** envelopes skipped: already stored (and repeats within the batch) */
  skipped: number;
  /** transactions whose rows are checked table by table before they are inserted */
  suspects: Set<string>;
  /** transactions in the ledger already (suspects among them get no second ledger row) */
  stored: ReadonlySet<string>;
  accepted: Fact[];
  parked: Parked[];
  dropped: number;
  newPools: PoolEntry[];
  /** pools and coins shown not to be the platform's: facts parked for them are dropped */
  foreign: string[];
};

/**
 * `stored`: signatures in the transactions ledger. `alreadyInFlight`: signatures whose
 * in-flight mark was there when they arrived (another write holds them, or one died
 * half-way).
 */
export function planBatch(incoming: readonly TxEnvelope[], stored: ReadonlySet<string>, alreadyInFlight: ReadonlySet<string>, pools: PoolView): BatchPlan {
  const batch = dedupeBy(incoming, (e) => e.signature);
  // In the ledger and not in flight: stored by a write that completed. In the ledger but
  // in flight: a write that died half-way (or is still running); its facts are checked.
  // Backfill re-reads history on purpose (e.g. after a config joined PLATFORM_CONFIGS):
  // its transactions are always checked.
  const fresh = batch.filter((e) => e.source === "backfill" || !stored.has(e.signature) || alreadyInFlight.has(e.signature));
  const suspects = new Set<string>();
  for (const e of fresh) if (e.source === "backfill" || alreadyInFlight.has(e.signature)) suspects.add(e.signature);
  const facts: Fact[] = [];
  for (const env of fresh) for (const f of env.facts) facts.push(f);
  const c = classify(facts, pools);
  return {
    signatures: batch.map((e) => e.signature),
    fresh,
    skipped: incoming.length - fresh.length,
    suspects,
    stored,
    accepted: c.accepted,
    parked: c.parked,
    dropped: c.dropped,
    newPools: c.newPools,
    foreign: c.foreign,
  };
}

/** Addresses whose parked facts a batch's new pools can release. */
export function releasedBy(newPools: readonly PoolEntry[]): string[] {
  return [...new Set(newPools.flatMap((p) => [p.address, p.mint]))];
}

export type TableWrite<R> = { clear: R[]; check: R[] };
export type TableWrites = { [T in FactTable]: TableWrite<Rows[T][number]> };

export type WritePlan = {
  tables: TableWrites;
  ledger: TransactionRow[];
  /** pools created in this write: their agents are made before the facts are visible */
  agents: PoolCreated[];
  park: Parked[];
  /** parked facts replayed for good (accepted, or dropped) */
  unpark: string[];
  dropped: number;
};

/**
 * `replayed`: the facts parked for the batch's new pools, read once the pools are known
 * to `pools` (their replay may follow a half-done one: they are checked).
 */
export function planRows(batch: BatchPlan, replayed: readonly { key: string; fact: Fact }[], pools: PoolView): WritePlan {
  const accepted = [...batch.accepted];
  const park = [...batch.parked];
  let dropped = batch.dropped;
  const suspects = new Set(batch.suspects);
  let unpark: string[] = [];
  if (replayed.length) {
    for (const r of replayed) suspects.add(r.fact.signature);
    const round = classify(replayed.map((r) => r.fact), pools);
    accepted.push(...round.accepted);
    park.push(...round.parked);
    dropped += round.dropped;
    const stillParked = new Set(park.map((p) => factKey(p.fact)));
    unpark = replayed.map((r) => r.key).filter((k) => !stillParked.has(k));
  }
  const configOf = (f: Fact) =>
    f.kind === "trade" && f.config
      ? pools.configs.byAddress.get(f.config) ?? pools.configOfMint(f.mint)
      : "mint" in f
        ? pools.configOfMint(f.mint)
        : undefined;
  const rows = toRows(accepted, configOf);
  // whole transactions, not classified facts: SOL transfers and balances are nobody's coin
  for (const env of batch.fresh) rows.treasury_flows.push(...treasuryFlows(env.facts, pools));
  const tables = {} as Record<FactTable, TableWrite<unknown>>;
  for (const table of FACT_TABLES) {
    const all = rows[table] as unknown as readonly { signature?: string }[];
    const isSuspect = (r: { signature?: string }) => r.signature !== undefined && suspects.has(r.signature);
    const check = suspects.size ? all.filter(isSuspect) : [];
    tables[table] = { clear: check.length ? all.filter((r) => !isSuspect(r)) : [...all], check };
  }
  return {
    tables: tables as TableWrites,
    ledger: batch.fresh.filter((e) => !batch.stored.has(e.signature)).map(transactionRow),
    agents: dedupeBy(accepted.filter((f): f is PoolCreated => f.kind === "pool_created"), (p) => p.mint),
    park: dedupeBy(park, (p) => factKey(p.fact)),
    unpark,
    dropped,
  };
}

function dedupeBy<T>(items: readonly T[], key: (t: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const i of items) if (!seen.has(key(i))) seen.set(key(i), i);
  return [...seen.values()];
}
