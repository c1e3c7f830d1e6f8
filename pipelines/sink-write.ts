/**
 * One write of the sink: a group of transaction envelopes → platform facts in
 * ClickHouse, the transaction ledger, and chain-following state in Postgres.
 */
import type { Sql } from "../infra/postgres";
import type { Fact, PoolCreated } from "../ingest/facts";
import type { TxEnvelope } from "./envelope";
import { classify, factFromJson, factKey, factToJson, type Parked } from "./classify";
import { FACT_TABLES, toRows } from "./rows";
import { newRowsOnly, storedSignatures } from "./gate";
import { persistPools } from "./platform/registry";
import { mirrorDirectory, upsertAgentsForPools } from "./agents-sink";
import { bump } from "./metrics";
import { dropParkedFor } from "./parked";
import { clearInFlight } from "./in-flight";
import type { SinkDeps, WriteCounts } from "./sink";

/**
 * `alreadyInFlight` holds the signatures whose in-flight mark was already there when
 * they arrived: another write holds them, or one died half-way.
 */
export async function writeBatch(deps: SinkDeps, incoming: TxEnvelope[], alreadyInFlight: ReadonlySet<string>, track: Track): Promise<WriteCounts> {
  const { ch, sql, registry, metrics } = deps;
  const batch = dedupeBy(incoming, (e) => e.signature);
  const sigs = batch.map((e) => e.signature);
  let mark = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    bump(metrics.stepMs, name, now - mark);
    mark = now;
  };
  const known = await storedSignatures(ch, batch);
  // In the ledger and marked now (no mark was left): stored by a write that completed.
  // In the ledger but marked in flight: a write that died half-way (or is still running);
  // its facts are checked table by table. Backfill re-reads history on purpose (e.g. after
  // a config joined PLATFORM_CONFIGS): its transactions are always checked.
  const fresh = batch.filter((e) => e.source === "backfill" || !known.has(e.signature) || alreadyInFlight.has(e.signature));
  let duplicates = incoming.length - fresh.length;
  if (fresh.length === 0) {
    releaseInflight(deps, sigs, track);
    metrics.duplicates += duplicates;
    metrics.batches++;
    return { stored: 0, duplicates, parked: 0, dropped: 0 };
  }
  step("lookup");
  const suspects = new Set<string>();
  for (const e of fresh) if (e.source === "backfill" || alreadyInFlight.has(e.signature)) suspects.add(e.signature);

  const facts: Fact[] = [];
  for (const env of fresh) for (const f of env.facts) facts.push(f);
  let round = classify(facts, registry);
  const round0 = round;
  const accepted = [...round.accepted];
  const parked: Parked[] = [...round.parked];
  let dropped = round.dropped;
  const newPools = [...round.newPools];

  // Facts parked earlier that were waiting for a pool or coin this batch makes known.
  let unparkedKeys: string[] = [];
  if (newPools.length) {
    await persistPools(sql, newPools);
    for (const p of newPools) registry.remember(p);
    const waiting = [...new Set(newPools.flatMap((p) => [p.address, p.mint]))];
    const rows = await sql<{ fact_key: string; fact: unknown }[]>`SELECT fact_key, fact FROM parked_facts WHERE waits_for IN ${sql(waiting)}`;
    if (rows.length) {
      const replayed = rows.map((r) => factFromJson(r.fact));
      for (const f of replayed) suspects.add(f.signature); // a replay may follow a half-done one
      round = classify(replayed, registry);
      accepted.push(...round.accepted);
      parked.push(...round.parked);
      dropped += round.dropped;
      unparkedKeys = rows.map((r) => r.fact_key);
    }
  }

  step("classify");
  // Agents before facts: the coin is listed by the time its trades are visible.
  const created = accepted.filter((f): f is PoolCreated => f.kind === "pool_created");
  const agents = await upsertAgentsForPools(sql, dedupeBy(created, (p) => p.mint));
  await mirrorDirectory(ch, registry.configs, agents);

  const rows = toRows(accepted, (f) =>
    f.kind === "trade" && f.config ? registry.configs.byAddress.get(f.config) ?? registry.configOfMint(f.mint) : registry.configOfMint(f.mint),
  );
  step("agents");
  let stored = 0;
  // Every table is written side by side, the ledger too: until the in-flight marks are
  // removed (after all of them), a redelivery is checked table by table, so a write that
  // dies between these inserts is completed by the next delivery, never doubled.
  const insertFacts = FACT_TABLES.map(async (table) => {
    const all = rows[table];
    if (all.length === 0) return;
    const suspect = suspects.size ? all.filter((r) => suspects.has(r.signature as string)) : [];
    const clear = suspect.length ? all.filter((r) => !suspects.has(r.signature as string)) : all;
    const checked = suspect.length ? await newRowsOnly(ch, table, suspect) : [];
    duplicates += suspect.length - checked.length;
    const insert = checked.length ? [...clear, ...checked] : clear;
    await ch.insert(table, insert);
    stored += insert.length;
    if (table !== "activity") bump(metrics.facts, table, insert.length);
  });
  const insertLedger = ch.insert("transactions", fresh.filter((e) => !known.has(e.signature)).map(ledgerRow));
  const parkFacts = parked.length ? storeParked(sql, parked) : null;
  // Every insert finishes before the write reports a failure: one still running then
  // could race a redelivery's check and store its rows twice.
  // Facts parked for pools or coins this batch shows are not the platform's can never match.
  const expireForeign = round0.foreign.length ? dropParkedFor(sql, round0.foreign).then((n) => void (metrics.parkedExpired += n)) : null;
  const outcomes = await Promise.allSettled([...insertFacts, insertLedger, parkFacts, expireForeign]);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (failed) throw failed.reason;
  if (unparkedKeys.length) {
    const stillParked = new Set(parked.map((p) => factKey(p.fact)));
    const done = unparkedKeys.filter((k) => !stillParked.has(k));
    if (done.length) await sql`DELETE FROM parked_facts WHERE fact_key IN ${sql(done)}`;
    metrics.unparked += done.length;
  }
  step("write");
  releaseInflight(deps, sigs, track);
  for (const e of fresh) {
    bump(metrics.transactions, e.status);
    metrics.unknownDiscriminators += e.unknownCount;
  }

  metrics.duplicates += duplicates;
  metrics.parked += parked.length;
  metrics.dropped += dropped;
  metrics.batches++;
  return { stored, duplicates, parked: parked.length, dropped };
}

function ledgerRow(e: TxEnvelope): Record<string, unknown> {
  return {
    signature: e.signature,
    slot: e.slot,
    block_time: e.blockTime,
    received_at: e.receivedAt,
    source: e.source,
    status: e.status,
    fact_count: e.facts.length,
    unknown_count: e.unknownCount,
    error_count: e.errorCount,
    detail: e.detail,
    payload: e.payload,
  };
}

async function storeParked(sql: Sql, parked: Parked[]): Promise<void> {
  const values = dedupeBy(parked, (p) => factKey(p.fact)).map((p) => ({ fact_key: factKey(p.fact), waits_for: p.waitsFor, fact: factToJson(p.fact) }));
  await sql`INSERT INTO parked_facts ${sql(values, "fact_key", "waits_for", "fact")} ON CONFLICT (fact_key) DO NOTHING`;
}

/**
 * The batch is durable once its ledger rows are: the in-flight marks are removed
 * without holding up the callers. A mark that outlives its write (slow or lost
 * delete) is harmless: the ledger already says the transaction is stored, and a
 * redelivery meeting the mark is only checked table by table.
 */
function releaseInflight({ sql, log }: SinkDeps, sigs: string[], track: Track): void {
  track(
    clearInFlight(sql, sigs).then(
      () => {},
      (err: unknown) => log.warn("could not remove in-flight marks; they only slow a redelivery of these transactions", { count: sigs.length, error: String(err) }),
    ),
  );
}

/** Keeps a background step's promise, so the sink can wait for it (at shutdown, in tests). */
export type Track = (work: Promise<void>) => void;

function dedupeBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const i of items) if (!seen.has(key(i))) seen.set(key(i), i);
  return [...seen.values()];
}
