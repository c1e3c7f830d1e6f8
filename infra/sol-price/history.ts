/**
 * The SOL price history: once a minute, the price service's current price is written
 * to ClickHouse `sol_price_1m` (migration 0008) under its minute. No source answering
 * means no row (a gap the readers fill with the previous minute's price, never a zero).
 * The demo's simulated price is recorded with source `simulated` (the API reports it as
 * `aggregator`), so a history made in a demo is never taken for a market's.
 */
import type { ClickHouse } from "../clickhouse/client";
import type { SolPriceService } from "./index";

export type RecordedPrice = { minute: number; usd: number; source: string };

/**
 * One step of the job: reads the current price and writes it under the minute of
 * `nowMs`. Returns the row written, or null when no source answered. A minute written
 * twice keeps one row (ReplacingMergeTree keyed by minute, the later write wins).
 */
export async function recordSolPrice(o: { ch: ClickHouse; price: SolPriceService; nowMs?: number; simulated?: boolean }): Promise<RecordedPrice | null> {
  const nowMs = o.nowMs ?? Date.now();
  const p = await o.price.current();
  if (!p || !Number.isFinite(p.usd) || p.usd <= 0) return null;
  const row = { minute: Math.floor(nowMs / 60_000) * 60, usd: p.usd, source: o.simulated ? "simulated" : p.source };
  await o.ch.insert("sol_price_1m", [{ ...row, recorded_at: Math.floor(nowMs / 1000) }]);
  return row;
}

/** The recorded minutes in [from, to) (unix seconds), one row each, oldest first. */
export function recordedSolPrices(ch: ClickHouse, from: number, to: number): Promise<RecordedPrice[]> {
  return ch
    .query<RecordedPrice>(
      `SELECT toUnixTimestamp(minute) AS minute, usd, toString(source) AS source FROM sol_price_1m FINAL
       WHERE minute >= toDateTime({from:UInt32}, 'UTC') AND minute < toDateTime({to:UInt32}, 'UTC') ORDER BY minute`,
      { from, to },
    )
    .then((rows) => rows.map((r) => ({ minute: Number(r.minute), usd: r.usd, source: r.source })));
}
