/**
 * The pipeline sink: batches of transaction envelopes → platform facts in
 * ClickHouse and chain-following state in Postgres. `write` resolves only once
 * everything in the batch is durable; groups are written one at a time
 * (sink-write.ts).
 */
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import type { TxEnvelope } from "../ingest/contract/envelope";
import type { PoolRegistry } from "./platform/registry";
import type { PipelineMetrics } from "./metrics";
import { writeBatch } from "./sink-write";
import { createInFlightMarker } from "./in-flight";
import { bisectFailures } from "./isolate";
import { expireParkedOlderThan } from "./parked";
import { rejectionReason, storeDeadLetters, type RejectedEnvelope } from "./dead-letters";

export type SinkDeps = {
  ch: ClickHouse;
  sql: Sql;
  registry: PoolRegistry;
  metrics: PipelineMetrics;
  log: Logger;
  /** parked facts older than this are dropped (PARKED_FACTS_MAX_AGE_HOURS); default 7 days */
  parkedMaxAgeMs?: number;
  /** told, once a write is stored, the coins whose token_balances it wrote (the holder counter recounts them) */
  onBalances?: (mints: string[]) => void;
  /** how a busy sink gathers its next write (GATHER); `maxWaitMs: 0` writes at once */
  gather?: Partial<typeof GATHER>;
};
export type WriteCounts = { stored: number; duplicates: number; parked: number; dropped: number };
/** `rejected`: the caller's transactions set aside because they failed on their own (see FactSink.write). */
export type WriteResult = WriteCounts & { rejected: RejectedEnvelope[] };

export type WriteOptions = {
  /**
   * The caller keeps what is rejected (the Kafka consumer sends it to the dead-letter
   * topic). Otherwise the sink stores it in Postgres `sink_dead_letters` before resolving.
   */
  keepRejected?: boolean;
};

export type FactSink = {
  /**
   * Resolves once the batch is stored. When the write fails, the transactions that fail on
   * their own while the rest is stored are set aside (`rejected`), so one bad transaction
   * never blocks the others; when nothing can be stored (an engine down) it rejects.
   */
  write(batch: TxEnvelope[], options?: WriteOptions): Promise<WriteResult>;
  /** resolves once the background steps of finished writes (removing in-flight marks) are done */
  settled(): Promise<void>;
};

export class SinkOverloaded extends Error {}

/**
 * A busy sink waits a little before its next write, until `minEnvelopes` wait, `gapMs` pass
 * after an arrival without another, or `maxWaitMs` pass, whichever comes first. Busy: batches
 * arrived while it wrote, or its last write, of several callers' batches, ended less than
 * `maxWaitMs` ago (those callers are coming back). A write costs chDB about 100 ms of CPU
 * whatever its size (its ~17 parts, each view's pipeline, the treasury's price read:
 * bench/sink-insert-cost.ts --group 400), so with few calls in flight, writing them together
 * rather than in alternating halves cuts that cost per transaction. An idle sink, or one
 * caller writing batch after batch (a consumer), writes at once.
 */
export const GATHER = { minEnvelopes: 4_000, gapMs: 15, maxWaitMs: 50 };

/**
 * Group commit: batches that arrive while a write is running are written together
 * in the next one (one insert per table for all of them), and every caller's
 * promise settles when its rows are durable. Under load this turns many small
 * webhook calls into few large inserts, which is what ClickHouse wants.
 *
 * Each batch marks its signatures in flight in Postgres (`sink_in_flight`, in-flight.ts)
 * as it arrives, side by side with other callers and with the write in progress, so the
 * mark costs the serial write nothing. A signature whose mark was already there is
 * "already in flight": its facts are checked table by table before they are inserted.
 *
 * `maxEnvelopesPerWrite` bounds one write (and so the latency of the calls in it);
 * past `maxQueued` waiting envelopes new batches are refused at once (the webhook
 * answers 503 and Helius retries) instead of waiting past Helius's deadline.
 */
export function createFactSink(deps: SinkDeps, maxEnvelopesPerWrite = 10_000, maxQueued = 50_000): FactSink {
  type Waiting = {
    batch: TxEnvelope[];
    keepRejected: boolean;
    alreadyInFlight: string[];
    markedAt: number;
    resolve: (r: WriteResult) => void;
    reject: (e: unknown) => void;
  };
  const waiting: Waiting[] = [];
  const gather = { ...GATHER, ...deps.gather };
  /** set while a busy sink gathers: called on each arrival */
  let onArrival: (() => void) | null = null;
  const markInFlight = createInFlightMarker(deps.sql);
  const background = new Set<Promise<void>>();
  let queued = 0;
  let running = false;
  // Marks are made in arrival order, writes in queue order. When a write fails, a batch
  // marked before that may hold signatures the failed write half-stored (both carried the
  // same transaction, the failed one found them marked): such a batch is checked in full.
  let failedWrites = 0;

  const track = (work: Promise<void>) => {
    background.add(work);
    void work.finally(() => background.delete(work));
  };

  // Facts that wait for a pool or coin that never appears are dropped once they are older
  // than the limit, checked at most every tenth of it (and at most every ten minutes).
  const parkedMaxAgeMs = deps.parkedMaxAgeMs ?? 7 * 86_400_000;
  let lastExpiry = -Infinity;
  const expireOldParked = () => {
    const now = Date.now();
    if (now - lastExpiry < Math.min(parkedMaxAgeMs / 10, 600_000)) return;
    lastExpiry = now;
    track(
      expireParkedOlderThan(deps.sql, parkedMaxAgeMs).then(
        (count) => {
          deps.metrics.parkedExpired += count;
          if (count) deps.log.info("parked facts expired: their pool or coin never appeared", { count, maxAgeHours: parkedMaxAgeMs / 3_600_000 });
        },
        (err: unknown) => deps.log.warn("could not expire old parked facts; retried after the next write", { error: String(err) }),
      ),
    );
  };

  /** After a busy write: waits for more batches (see GATHER). */
  function gatherMore(): Promise<void> {
    const enough = () => waiting.reduce((n, w) => n + w.batch.length, 0) >= gather.minEnvelopes;
    if (gather.maxWaitMs <= 0 || enough()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let gap: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        clearTimeout(gap);
        clearTimeout(cap);
        onArrival = null;
        resolve();
      };
      const cap = setTimeout(done, gather.maxWaitMs);
      const waitGap = () => {
        clearTimeout(gap);
        gap = setTimeout(done, gather.gapMs);
      };
      // the gap counts from the first arrival: the callers of the last write need a moment to come back
      onArrival = () => (enough() ? done() : waitGap());
    });
  }

  /** when the last write of several callers' batches ended: they are likely on their way back */
  let lastSharedWriteEnded = -Infinity;
  async function drain() {
    running = true;
    let busy = performance.now() - lastSharedWriteEnded < gather.maxWaitMs;
    while (waiting.length) {
      // batches arrived during the last write (or see lastSharedWriteEnded): more are likely on their way
      if (busy) await gatherMore();
      busy = true;
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
        const { counts, failing } = await writeGroup(group);
        deps.metrics.writeMs += performance.now() - started;
        deps.metrics.sinkWriteSeconds.observe((performance.now() - started) / 1000);
        const rejected = failing.size ? await setAside(group, failing) : null;
        for (const w of group) w.resolve({ ...counts, rejected: rejected?.get(w) ?? [] });
        expireOldParked();
      } catch (err) {
        failedWrites++;
        for (const w of group) w.reject(err);
      }
      if (group.length > 1) lastSharedWriteEnded = performance.now();
    }
    running = false;
  }

  /** One write of the group; when it fails, the transactions that fail on their own are found (isolate.ts). */
  async function writeGroup(group: Waiting[]): Promise<{ counts: WriteCounts; failing: Map<string, string> }> {
    const envelopes = group.flatMap((w) => w.batch);
    const alreadyInFlight = new Set(group.flatMap((w) => (w.markedAt < failedWrites ? w.batch.map((e) => e.signature) : w.alreadyInFlight)));
    try {
      return { counts: await writeBatch(deps, envelopes, alreadyInFlight, track), failing: new Map() };
    } catch (err) {
      failedWrites++;
      if (!(await enginesAnswer())) throw err;
      // the failed write may have stored part of any of its transactions: all are checked
      const everything = new Set(envelopes.map((e) => e.signature));
      const { written, failing } = await bisectFailures(envelopes, err, (part) => writeBatch(deps, part, everything, track));
      // Nothing could be stored, or the engines no longer answer: not one transaction's
      // fault (an engine down, say). The whole write fails and is delivered again.
      if (written.length === 0 || !(await enginesAnswer())) throw err;
      const counts = { stored: 0, duplicates: 0, parked: 0, dropped: 0 };
      for (const c of written) for (const k of Object.keys(counts) as (keyof WriteCounts)[]) counts[k] += c[k];
      return { counts, failing: new Map(failing.map((f) => [f.signature, rejectionReason(f.error)])) };
    }
  }

  async function enginesAnswer(): Promise<boolean> {
    return Promise.all([deps.sql`SELECT 1`, deps.ch.query("SELECT 1")]).then(
      () => true,
      () => false,
    );
  }

  /**
   * Sets aside the transactions that failed on their own: logged, counted, and stored in
   * `sink_dead_letters` unless their caller keeps them. Their in-flight marks stay, so a
   * replay is checked table by table. Returns each caller's share.
   */
  async function setAside(group: Waiting[], failing: Map<string, string>): Promise<Map<Waiting, RejectedEnvelope[]>> {
    const byCaller = new Map<Waiting, RejectedEnvelope[]>();
    const toStore = new Map<string, RejectedEnvelope>();
    for (const w of group) {
      const mine = new Map<string, RejectedEnvelope>();
      for (const envelope of w.batch) {
        const reason = failing.get(envelope.signature);
        if (reason !== undefined && !mine.has(envelope.signature)) mine.set(envelope.signature, { envelope, reason });
      }
      byCaller.set(w, [...mine.values()]);
      if (!w.keepRejected) for (const [sig, r] of mine) toStore.set(sig, r);
    }
    await storeDeadLetters(deps.sql, [...toStore.values()]);
    for (const [signature, reason] of failing) deps.log.warn("transaction set aside: it fails on its own while the rest of its write is stored", { signature, reason });
    deps.metrics.deadLettered += failing.size;
    return byCaller;
  }

  return {
    async write(batch, options = {}) {
      if (batch.length === 0) return { stored: 0, duplicates: 0, parked: 0, dropped: 0, rejected: [] };
      if (queued + batch.length > maxQueued && queued > 0) throw new SinkOverloaded(`${queued} transactions are waiting to be stored`);
      queued += batch.length;
      const markedAt = failedWrites;
      let alreadyInFlight: string[];
      try {
        alreadyInFlight = await markInFlight([...new Set(batch.map((e) => e.signature))]);
      } catch (err) {
        queued -= batch.length;
        throw err;
      }
      return new Promise<WriteResult>((resolve, reject) => {
        waiting.push({ batch, keepRejected: options.keepRejected ?? false, alreadyInFlight, markedAt, resolve, reject });
        if (!running) void drain();
        else onArrival?.();
      });
    },
    async settled() {
      while (background.size) await Promise.all(background);
    },
  };
}
