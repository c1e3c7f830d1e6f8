-- The SOL/USD price of each minute, recorded once a minute by the background job
-- (infra/sol-price/history.ts) from the SOL price service, so USD figures of the past
-- (candles' openUsd..volumeUsd) use the price of their own minute, not today's.
-- Keyed by minute: a minute written twice (two processes, a restart) keeps one row
-- after merges, and readers use FINAL. A minute no source answered has no row (a gap,
-- never a zero); readers take the last price at or before a minute (ASOF JOIN).
CREATE TABLE IF NOT EXISTS sol_price_1m (
  minute DateTime('UTC'),
  usd Float64,
  source LowCardinality(String),
  recorded_at DateTime('UTC')
) ENGINE = ReplacingMergeTree
ORDER BY minute;
