/**
 * The pipeline sink: batches of transaction envelopes → platform facts in
 * ClickHouse and chain-following state in Postgres. `write` resolves only once
 * everything in the batch is durable; groups are written one at a time
 * (sink-write.ts).
 */
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import type { TxEnvelope } from "./envelope";
import type { PoolRegistry } from "./platform/registry";
import type { PipelineMetrics } from "./metrics";
import { writeBatch } from "./sink-write";
import { markInFlight } from "./in-flight";

export type SinkDeps = { ch: ClickHouse; sql: Sql; registry: PoolRegistry; metrics: PipelineMetrics; log: Logger };
export type WriteResult = { stored: number; duplicates: number; parked: number; dropped: number };

export type FactSink = {
  write(batch: TxEnvelope[]): Promise<WriteResult>;
  /** resolves once the background steps of finished writes (removing in-flight marks) are done */
  settled(): Promise<void>;
};

export class SinkOverloaded extends Error {}

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
  type Waiting = { batch: TxEnvelope[]; alreadyInFlight: string[]; markedAt: number; resolve: (r: WriteResult) => void; reject: (e: unknown) => void };
  const waiting: Waiting[] = [];
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
        const alreadyInFlight = new Set(group.flatMap((w) => (w.markedAt < failedWrites ? w.batch.map((e) => e.signature) : w.alreadyInFlight)));
        const result = await writeBatch(deps, group.flatMap((w) => w.batch), alreadyInFlight, track);
        deps.metrics.writeMs += performance.now() - started;
        for (const w of group) w.resolve(result);
      } catch (err) {
        failedWrites++;
        for (const w of group) w.reject(err);
      }
    }
    running = false;
  }

  return {
    async write(batch) {
      if (batch.length === 0) return { stored: 0, duplicates: 0, parked: 0, dropped: 0 };
      if (queued + batch.length > maxQueued && queued > 0) throw new SinkOverloaded(`${queued} transactions are waiting to be stored`);
      queued += batch.length;
      const markedAt = failedWrites;
      let alreadyInFlight: string[];
      try {
        alreadyInFlight = await markInFlight(deps.sql, [...new Set(batch.map((e) => e.signature))]);
      } catch (err) {
        queued -= batch.length;
        throw err;
      }
      return new Promise<WriteResult>((resolve, reject) => {
        waiting.push({ batch, alreadyInFlight, markedAt, resolve, reject });
        if (!running) void drain();
      });
    },
    async settled() {
      while (background.size) await Promise.all(background);
    },
  };
}
