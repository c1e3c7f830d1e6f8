-- Trades in time order, for the feeds across every coin (the Data API's
-- /v1/public/activity?kinds=trade, the Application API's /v1/feed, which shows trades
-- by default). `trades` is keyed by coin, so "the newest trades of all coins" read the
-- whole `at` column and sorted it: p50 51 ms, max 103 ms at 10M trades (chDB, 5,000
-- coins, 15 sequential reads). Keyed by time, the newest page is read in key order
-- from the table's end: p50 8.8 ms, max 17.4 ms on the same data.
--
-- Only the columns a feed item shows. Trades reach `trades` exactly once (the sink's
-- gate), so the view adds each once. The view comes first, then the copy of what is
-- already stored (emptied first, so a re-run of this file copies exactly once): with
-- writers running during the upgrade, a trade may be both copied and seen by the view
-- (the key is the fact's own, so the two collapse at merge), never neither.
CREATE TABLE IF NOT EXISTS trade_feed (
  at DateTime('UTC'),
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  mint String,
  side LowCardinality(String),
  trader String,
  amount_quote UInt64,
  amount_base UInt64,
  base_decimals UInt8,
  quote_mint String
) ENGINE = ReplacingMergeTree
ORDER BY (at, slot, signature, ix, inner)
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS trade_feed_mv TO trade_feed AS
SELECT at, slot, signature, ix, inner, mint, side, trader, amount_quote, amount_base, base_decimals, quote_mint FROM trades;

TRUNCATE TABLE trade_feed;

INSERT INTO trade_feed SELECT at, slot, signature, ix, inner, mint, side, trader, amount_quote, amount_base, base_decimals, quote_mint FROM trades;
