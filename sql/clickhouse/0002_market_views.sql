-- What the Data API reads. Every view writes TO a named table. Inputs reach the
-- fact tables exactly once (the pipeline's insert gate), so sums and counts are
-- safe; "last" values use argMax over the fact's chain order, which is
-- idempotent anyway. The order is one UInt128 (slot, outer ix, inner ix, and 32
-- bits of the signature's hash to order transactions of one slot the same way
-- whatever the delivery order): far cheaper to keep and compare than a tuple.

-- Per-mint market state across the coin's whole life (curve and DAMM v2).
CREATE TABLE IF NOT EXISTS market_state (
  mint String,
  last_key SimpleAggregateFunction(max, UInt128),
  sqrt_price AggregateFunction(argMax, UInt128, UInt128),
  price_sol AggregateFunction(argMax, Float64, UInt128),
  pool AggregateFunction(argMax, String, UInt128),
  venue AggregateFunction(argMax, String, UInt128),
  quote_reserve AggregateFunction(argMax, UInt64, UInt128),
  migration_threshold SimpleAggregateFunction(max, UInt64),
  first_at SimpleAggregateFunction(min, DateTime('UTC')),
  last_at SimpleAggregateFunction(max, DateTime('UTC')),
  trades SimpleAggregateFunction(sum, UInt64),
  volume_sol SimpleAggregateFunction(sum, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY mint
-- small granules: a one-coin read decodes 256 aggregate states, not 8,192
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_state_mv TO market_state AS
SELECT
  mint,
  max(ord) AS last_key,
  argMaxState(sqrt_price, ord) AS sqrt_price,
  argMaxState(price_sol, ord) AS price_sol,
  argMaxState(pool, ord) AS pool,
  argMaxState(toString(venue), ord) AS venue,
  argMaxState(quote_reserve, ord) AS quote_reserve,
  max(migration_threshold) AS migration_threshold,
  min(at) AS first_at,
  max(at) AS last_at,
  toUInt64(count()) AS trades,
  sum(toUInt128(amount_quote)) AS volume_sol
FROM (SELECT *, bitOr(bitShiftLeft(toUInt128(slot), 64), bitOr(bitShiftLeft(toUInt128(ix), 48), bitOr(bitShiftLeft(toUInt128(inner + 1), 32), toUInt128(bitAnd(cityHash64(signature), 4294967295))))) AS ord FROM trades)
GROUP BY mint;

-- One-minute OHLCV per coin, curve and DAMM v2 in one series.
CREATE TABLE IF NOT EXISTS candles_1m (
  mint String,
  minute DateTime('UTC'),
  open AggregateFunction(argMin, Float64, UInt128),
  close AggregateFunction(argMax, Float64, UInt128),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  volume_sol SimpleAggregateFunction(sum, UInt128),
  volume_token SimpleAggregateFunction(sum, UInt128),
  trades SimpleAggregateFunction(sum, UInt64),
  buys SimpleAggregateFunction(sum, UInt64)
) ENGINE = AggregatingMergeTree
ORDER BY (mint, minute)
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1m_mv TO candles_1m AS
SELECT
  mint,
  toStartOfMinute(at) AS minute,
  argMinState(price_sol, ord) AS open,
  argMaxState(price_sol, ord) AS close,
  max(price_sol) AS high,
  min(price_sol) AS low,
  sum(toUInt128(amount_quote)) AS volume_sol,
  sum(toUInt128(amount_base)) AS volume_token,
  toUInt64(count()) AS trades,
  toUInt64(countIf(side = 'buy')) AS buys
FROM (SELECT *, bitOr(bitShiftLeft(toUInt128(slot), 64), bitOr(bitShiftLeft(toUInt128(ix), 48), bitOr(bitShiftLeft(toUInt128(inner + 1), 32), toUInt128(bitAnd(cityHash64(signature), 4294967295))))) AS ord FROM trades)
GROUP BY mint, minute;

-- Time-ordered per-minute volume and close per coin: a window over every coin
-- (24 h volume for the trending sort, the close 24 h ago for change24hPct)
-- reads only the minutes in the window.
CREATE TABLE IF NOT EXISTS volume_1m (
  minute DateTime('UTC'),
  mint String,
  volume_sol SimpleAggregateFunction(sum, UInt128),
  trades SimpleAggregateFunction(sum, UInt64),
  close AggregateFunction(argMax, Float64, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY (minute, mint);

CREATE MATERIALIZED VIEW IF NOT EXISTS volume_1m_mv TO volume_1m AS
SELECT toStartOfMinute(at) AS minute, mint, sum(toUInt128(amount_quote)) AS volume_sol, toUInt64(count()) AS trades,
  argMaxState(price_sol, ord) AS close
FROM (SELECT *, bitOr(bitShiftLeft(toUInt128(slot), 64), bitOr(bitShiftLeft(toUInt128(ix), 48), bitOr(bitShiftLeft(toUInt128(inner + 1), 32), toUInt128(bitAnd(cityHash64(signature), 4294967295))))) AS ord FROM trades)
GROUP BY minute, mint;

-- Platform-wide per-minute totals for stats.
CREATE TABLE IF NOT EXISTS platform_minute (
  minute DateTime('UTC'),
  trades SimpleAggregateFunction(sum, UInt64),
  volume_sol SimpleAggregateFunction(sum, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY minute;

CREATE MATERIALIZED VIEW IF NOT EXISTS platform_minute_mv TO platform_minute AS
SELECT toStartOfMinute(at) AS minute, toUInt64(count()) AS trades, sum(toUInt128(amount_quote)) AS volume_sol
FROM trades
GROUP BY minute;

CREATE TABLE IF NOT EXISTS burn_totals (
  mint String,
  burned SimpleAggregateFunction(sum, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY mint;

CREATE MATERIALIZED VIEW IF NOT EXISTS burn_totals_mv TO burn_totals AS
SELECT mint, sum(toUInt128(amount)) AS burned FROM burns GROUP BY mint;
