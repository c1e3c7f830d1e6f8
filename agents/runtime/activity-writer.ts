/**
 * Writes activity rows in batches: the cycles running at once each hand over a row and
 * wait until it is stored, and one ClickHouse insert takes all the rows handed over
 * within `maxWaitMs` (ClickHouse prefers few large inserts to many one-row ones).
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { ActivityRow } from "../../pipelines/rows";

export type ActivityWriter = { write(row: ActivityRow): Promise<void> };

export function batchedActivityWriter(ch: ClickHouse, o: { maxRows?: number; maxWaitMs?: number } = {}): ActivityWriter {
  const maxRows = o.maxRows ?? 500;
  let pending: { row: ActivityRow; done: (err?: unknown) => void }[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = async () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = [];
    const err = await ch.insert("activity", batch.map((b) => b.row)).then(() => undefined, (e: unknown) => e ?? new Error("insert failed"));
    for (const b of batch) b.done(err);
  };
  return {
    write(row) {
      return new Promise<void>((resolve, reject) => {
        pending.push({ row, done: (err) => (err ? reject(err) : resolve()) });
        if (pending.length >= maxRows) void flush();
        else timer ??= setTimeout(() => void flush(), o.maxWaitMs ?? 20);
      });
    },
  };
}
