/**
 * The pipeline sink: a batch of transaction envelopes → platform facts in
 * ClickHouse and chain-following state in Postgres. `write` resolves only once
 * everything in the batch is durable; batches are written one at a time.
 */
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import type { Fact, PoolCreated } from "../ingest/facts";
import type { TxEnvelope } from "./envelope";
import { classify, factFromJson, factKey, factToJson, type Parked } from "./classify";
import { FACT_TABLES, toRows } from "./rows";
import { newRowsOnly, storedSignatures } from "./gate";
import { persistPools, type PoolRegistry } from "./platform/registry";
import { mirrorDirectory, upsertAgentsForPools } from "./agents-sink";
import { bump, type PipelineMetrics } from "./metrics";

export type SinkDeps = { ch: ClickHouse; sql: Sql; registry: PoolRegistry; metrics: PipelineMetrics; log: Logger };
export type WriteResult = { stored: number; duplicates: number; parked: number; dropped: number };

export type FactSink = { write(batch: TxEnvelope[]): Promise<WriteResult> };

/**
 * Group commit: batches that arrive while a write is running are written together
 * in the next one (one insert per table for all of them), and every caller's
 * promise settles when its rows are durable. Under load this turns many small
 * webhook calls into few large inserts, which is what ClickHouse wants.
 */
export class SinkOverloaded extends Error {}

/**
 * `maxEnvelopesPerWrite` bounds one write (and so the latency of the calls in it);
 * past `maxQueued` waiting envelopes new batches are refused at once (the webhook
 * answers 503 and Helius retries) instead of waiting past Helius's deadline.
 */
export function createFactSink(deps: SinkDeps, maxEnvelopesPerWrite = 10_000, maxQueued = 50_000): FactSink {
  type Waiting = { batch: TxEnvelope[]; resolve: (r: WriteResult) => void; reject: (e: unknown) => void };
  let waiting: Waiting[] = [];
  let queued = 0;
  let running = false;

  async function drain() {
    running = true;
    while (waiting.length) {
      const group: Waiting[] = [];
      let size = 0;
      while (waiting.length && (group.length === 0 || size + waiting[0]!.batch.length <= maxEnvelopesPerWrite)) {
        const w = waiting.shift()!;
        group.push(w);
        size += w.batch.length;
        queued -= w.batch.length;
      }
      try {
        const started = performance.now();
        const result = await writeBatch(deps, group.flatMap((w) => w.batch));
        deps.metrics.writeMs += performance.now() - started;
        for (const w of group) w.resolve(result);
      } catch (err) {
        for (const w of group) w.reject(err);
      }
    }
    running = false;
  }

  return {
    write(batch) {
      if (queued + batch.length > maxQueued && queued > 0)
        return Promise.reject(new SinkOverloaded(`${queued} transactions are waiting to be stored`));
      return new Promise<WriteResult>((resolve, reject) => {
        waiting.push({ batch, resolve, reject });
        queued += batch.length;
        if (!running) void drain();
      });
    },
  };
}

async function writeBatch(deps: SinkDeps, incoming: TxEnvelope[]): Promise<WriteResult> {
  const { ch, sql, registry, metrics } = deps;
  const batch = dedupeBy(incoming, (e) => e.signature);
  const sigs = batch.map((e) => e.signature);
  // One round trip claims every signature in flight and finds those already marked: a write
  // that died half-way left them, so their facts are checked table by table.
  const [known, claimed] = await Promise.all([
    storedSignatures(ch, sigs),
    sql<{ signature: string }[]>`INSERT INTO sink_inflight (signature) SELECT unnest(${sigs}::text[]) ON CONFLICT DO NOTHING RETURNING signature`,
  ]);
  // Backfill re-reads history on purpose (e.g. after a config joined PLATFORM_CONFIGS): its
  // transactions are not skipped as already recorded; their facts are checked table by table.
  const fresh = batch.filter((e) => e.source === "backfill" || !known.has(e.signature));
  let duplicates = incoming.length - fresh.length;
  if (fresh.length === 0) {
    await sql`DELETE FROM sink_inflight WHERE signature = ANY(${sigs}::text[])`;
    metrics.duplicates += duplicates;
    metrics.batches++;
    return { stored: 0, duplicates, parked: 0, dropped: 0 };
  }
  const freshSigs = fresh.map((e) => e.signature);
  const claimedNow = new Set(claimed.map((r) => r.signature));
  const suspects = new Set<string>(freshSigs.filter((s) => !claimedNow.has(s)));
  for (const e of fresh) if (e.source === "backfill") suspects.add(e.signature);

  const facts: Fact[] = [];
  for (const env of fresh) for (const f of env.facts) facts.push(f);
  let round = classify(facts, registry);
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

  // Agents before facts: the coin is listed by the time its trades are visible.
  const created = accepted.filter((f): f is PoolCreated => f.kind === "pool_created");
  const agents = await upsertAgentsForPools(sql, dedupeBy(created, (p) => p.mint));
  await mirrorDirectory(ch, registry.configs, agents);

  const rows = toRows(accepted, (f) =>
    f.kind === "trade" && f.config ? registry.configs.byAddress.get(f.config) ?? registry.configOfMint(f.mint) : registry.configOfMint(f.mint),
  );
  let stored = 0;
  // Tables are independent: each inserts side by side; suspect rows are checked first.
  await Promise.all(
    FACT_TABLES.map(async (table) => {
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
    }),
  );

  if (parked.length) {
    const values = dedupeBy(parked, (p) => factKey(p.fact)).map((p) => ({ fact_key: factKey(p.fact), waits_for: p.waitsFor, fact: factToJson(p.fact) }));
    await sql`INSERT INTO parked_facts ${sql(values, "fact_key", "waits_for", "fact")} ON CONFLICT (fact_key) DO NOTHING`;
  }
  if (unparkedKeys.length) {
    const stillParked = new Set(parked.map((p) => factKey(p.fact)));
    const done = unparkedKeys.filter((k) => !stillParked.has(k));
    if (done.length) await sql`DELETE FROM parked_facts WHERE fact_key IN ${sql(done)}`;
    metrics.unparked += done.length;
  }

  // The transaction ledger last: a transaction is recorded once all its facts are.
  await ch.insert(
    "raw_transactions",
    fresh.filter((e) => !known.has(e.signature)).map((e) => ({
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
    })),
  );
  await sql`DELETE FROM sink_inflight WHERE signature = ANY(${sigs}::text[])`;
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

function dedupeBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const i of items) if (!seen.has(key(i))) seen.set(key(i), i);
  return [...seen.values()];
}
