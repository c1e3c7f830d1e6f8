/**
 * One write of the sink, applying the plan (write-plan.ts): a group of transaction
 * envelopes → platform facts in ClickHouse, the transaction ledger, and
 * chain-following state in Postgres. The decisions are in the plan; this reads what
 * they need and writes what they say.
 */
import type { Sql } from "../infra/postgres";
import type { Fact } from "../ingest/contract/facts";
import type { TxEnvelope } from "../ingest/contract/envelope";
import { factFromJson, factKey, factToJson, type Parked } from "./classify";
import { FACT_TABLES, type FactRow, type FactTable } from "./rows";
import { PRICED_TABLES, pricedWrites, type PricedRow, type PricedTable } from "./priced-rows";
import { newRowsOnly, storedSignatures } from "./gate";
import { persistPools } from "./platform/registry";
import { mirrorDirectory, upsertAgentsForPools } from "./agents-sink";
import { bump } from "./metrics";
import { clearInFlight } from "./in-flight";
import { dropParkedFor } from "./parked";
import { planBatch, planRows, releasedBy, type TableWrite } from "./write-plan";
import type { SinkDeps, WriteCounts } from "./sink";

/**
 * `alreadyInFlight` holds the signatures whose in-flight mark was already there when
 * they arrived: another write holds them, or one died half-way.
 */
export async function writeBatch(deps: SinkDeps, incoming: TxEnvelope[], alreadyInFlight: ReadonlySet<string>, track: Track): Promise<WriteCounts> {
  const { ch, sql, registry, metrics } = deps;
  let mark = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    bump(metrics.stepMs, name, now - mark);
    mark = now;
  };
  const stored = await storedSignatures(ch, incoming);
  const batch = planBatch(incoming, stored, alreadyInFlight, registry);
  let duplicates = batch.skipped;
  if (batch.fresh.length === 0) {
    clearMarks(deps, batch.signatures, track);
    metrics.duplicates += duplicates;
    metrics.batches++;
    return { stored: 0, duplicates, parked: 0, dropped: 0 };
  }
  step("lookup");

  // Facts parked earlier that were waiting for a pool or coin this batch makes known.
  let replayed: { key: string; fact: Fact }[] = [];
  if (batch.newPools.length) {
    await persistPools(sql, batch.newPools);
    for (const p of batch.newPools) registry.remember(p);
    const rows = await sql<{ fact_key: string; fact: unknown }[]>`SELECT fact_key, fact FROM parked_facts WHERE waits_for IN ${sql(releasedBy(batch.newPools))}`;
    replayed = rows.map((r) => ({ key: r.fact_key, fact: factFromJson(r.fact) }));
  }
  const plan = planRows(batch, replayed, registry);
  step("classify");

  // Agents before facts: the coin is listed by the time its trades are visible.
  const agents = await upsertAgentsForPools(sql, plan.agents);
  await mirrorDirectory(ch, registry.configs, agents);
  step("agents");
  // priced and classified with what is stored now, the directory mirror above included
  const priced = await pricedWrites(ch, plan.tables.fee_claims, plan.tables.treasury_flows);
  step("price");

  let written = 0;
  // Every table is written side by side, the ledger too: until the in-flight marks are
  // removed (after all of them), a redelivery is checked table by table, so a write that
  // dies between these inserts is completed by the next delivery, never doubled.
  const writes: [FactTable | PricedTable, TableWrite<FactRow | PricedRow>][] = [
    ...FACT_TABLES.map((t): [FactTable, TableWrite<FactRow>] => [t, plan.tables[t]]),
    ...PRICED_TABLES.map((t): [PricedTable, TableWrite<PricedRow>] => [t, priced[t]]),
  ];
  const insertFacts = writes.map(async ([table, { clear, check }]) => {
    if (clear.length === 0 && check.length === 0) return;
    const checked = check.length ? await newRowsOnly(ch, table, check) : [];
    const insert = checked.length ? [...clear, ...checked] : clear;
    await ch.insert(table, insert);
    // the priced rows are read models of facts counted here already
    if (table === "fee_claims_usd" || table === "treasury_transfers") return;
    duplicates += check.length - checked.length;
    written += insert.length;
    if (table !== "activity") bump(metrics.facts, table, insert.length);
  });
  const insertLedger = ch.insert("transactions", plan.ledger);
  const parkFacts = plan.park.length ? storeParked(sql, plan.park) : null;
  // Facts parked for pools or coins this batch shows are not the platform's can never match.
  const expireForeign = batch.foreign.length ? dropParkedFor(sql, batch.foreign).then((n) => void (metrics.parkedExpired += n)) : null;
  // Every insert finishes before the write reports a failure: one still running then
  // could race a redelivery's check and store its rows twice.
  const outcomes = await Promise.allSettled([...insertFacts, insertLedger, parkFacts, expireForeign]);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (failed) throw failed.reason;
  if (plan.unpark.length) {
    await sql`DELETE FROM parked_facts WHERE fact_key IN ${sql(plan.unpark)}`;
    metrics.unparked += plan.unpark.length;
  }
  step("write");
  clearMarks(deps, batch.signatures, track);
  const balances = plan.tables.token_balances;
  if (deps.onBalances && (balances.clear.length || balances.check.length))
    deps.onBalances([...new Set([...balances.clear, ...balances.check].map((r) => r.mint))]);
  for (const e of batch.fresh) {
    bump(metrics.transactions, e.status);
    metrics.unknownDiscriminators += e.unknownCount;
  }

  metrics.duplicates += duplicates;
  metrics.parked += plan.park.length;
  metrics.dropped += plan.dropped;
  metrics.batches++;
  return { stored: written, duplicates, parked: plan.park.length, dropped: plan.dropped };
}

async function storeParked(sql: Sql, parked: Parked[]): Promise<void> {
  const values = parked.map((p) => ({ fact_key: factKey(p.fact), waits_for: p.waitsFor, fact: factToJson(p.fact) }));
  await sql`INSERT INTO parked_facts ${sql(values, "fact_key", "waits_for", "fact")} ON CONFLICT (fact_key) DO NOTHING`;
}

/**
 * The batch is durable once its ledger rows are: the in-flight marks are removed
 * without holding up the callers. A mark that outlives its write (slow or lost
 * delete) is harmless: the ledger already says the transaction is stored, and a
 * redelivery meeting the mark is only checked table by table.
 */
function clearMarks({ sql, log }: SinkDeps, sigs: string[], track: Track): void {
  track(
    clearInFlight(sql, sigs).then(
      () => {},
      (err: unknown) => log.warn("could not remove in-flight marks; they only slow a redelivery of these transactions", { count: sigs.length, error: String(err) }),
    ),
  );
}

/** Keeps a background step's promise, so the sink can wait for it (at shutdown, in tests). */
export type Track = (work: Promise<void>) => void;
