-- Trades in chain order across every coin, for the trade history export
-- (/v1/public/exports/trades without `mint`). `trades` is keyed by coin first, so
-- "every trade ordered by (slot, signature, ix, inner)" had to sort the whole table:
-- at 10M trades a full sort in the engine's memory (several GB, inside the api
-- process when the engine is chDB). Keyed by slot, the export reads the table in key
-- order and streams it with flat memory. A single coin's export reads `trades`
-- (its key starts with the coin, then the same order).
--
-- The columns the export shows. Trades reach `trades` exactly once (the sink's gate),
-- so the view adds each once, and the export reads without FINAL. The view comes
-- first, then the copy of what is already stored (emptied first, so a re-run of this
-- file copies exactly once). Stop every writer before upgrading: a trade written during
-- the copy could be both copied and added by the view, and the export would show it
-- twice until the two collapse at a merge.
CREATE TABLE IF NOT EXISTS trades_by_slot (
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  at DateTime('UTC'),
  mint String,
  pool String,
  venue LowCardinality(String),
  quote_mint String,
  side LowCardinality(String),
  trader String,
  amount_quote UInt64,
  amount_base UInt64,
  base_decimals UInt8,
  price_sol Float64,
  trading_fee UInt64,
  protocol_fee UInt64,
  referral_fee UInt64
) ENGINE = ReplacingMergeTree
ORDER BY (slot, signature, ix, inner);

CREATE MATERIALIZED VIEW IF NOT EXISTS trades_by_slot_mv TO trades_by_slot AS
SELECT slot, signature, ix, inner, at, mint, pool, venue, quote_mint, side, trader, amount_quote, amount_base, base_decimals, price_sol,
  trading_fee, protocol_fee, referral_fee FROM trades;

TRUNCATE TABLE trades_by_slot;

INSERT INTO trades_by_slot SELECT slot, signature, ix, inner, at, mint, pool, venue, quote_mint, side, trader, amount_quote, amount_base,
  base_decimals, price_sol, trading_fee, protocol_fee, referral_fee FROM trades;
