-- Fee and volume rollups for the platform's totals and the analytics overview
-- (GET /v1/platform/stats, /v1/analytics/overview), so no request sums `trades`.
-- Trades reach `trades` exactly once (the sink's gate), so the views add each once.
-- Each view comes first, then the copy of what is already stored (the table emptied
-- first, so a re-run of this file copies exactly once); a trade written during the
-- upgrade may be both copied and seen by a view, and would then count twice until
-- the copy is rerun: run migrations before the writers, as `npm start` does.

-- Per hour and config: the totals of a window (24h/7d/30d/all in whole hours), a few
-- rows per hour whatever the number of coins. The config gives the fee split.
CREATE TABLE IF NOT EXISTS fees_1h (
  hour DateTime('UTC'),
  config String,
  trades SimpleAggregateFunction(sum, UInt64),
  volume SimpleAggregateFunction(sum, UInt128),
  trading_fee SimpleAggregateFunction(sum, UInt128),
  protocol_fee SimpleAggregateFunction(sum, UInt128),
  referral_fee SimpleAggregateFunction(sum, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY (hour, config);

CREATE MATERIALIZED VIEW IF NOT EXISTS fees_1h_mv TO fees_1h AS
SELECT toStartOfHour(at) AS hour, config, toUInt64(count()) AS trades, sum(toUInt128(amount_quote)) AS volume,
  sum(toUInt128(trading_fee)) AS trading_fee, sum(toUInt128(protocol_fee)) AS protocol_fee, sum(toUInt128(referral_fee)) AS referral_fee
FROM trades
GROUP BY hour, config;

-- Per UTC day and coin: the coins whose creators earned most in a window (topEarners).
CREATE TABLE IF NOT EXISTS coin_fees_1d (
  day Date,
  mint String,
  config String,
  trading_fee SimpleAggregateFunction(sum, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY (day, mint, config);

CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_1d_mv TO coin_fees_1d AS
SELECT toDate(at) AS day, mint, config, sum(toUInt128(trading_fee)) AS trading_fee
FROM trades
GROUP BY day, mint, config;

-- Per coin, all time: all-time fees (platform stats) and all-time topEarners read one
-- row per coin instead of one per coin and day.
CREATE TABLE IF NOT EXISTS coin_fees (
  mint String,
  config String,
  trading_fee SimpleAggregateFunction(sum, UInt128),
  protocol_fee SimpleAggregateFunction(sum, UInt128),
  referral_fee SimpleAggregateFunction(sum, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY (mint, config);

CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_mv TO coin_fees AS
SELECT mint, config, sum(toUInt128(trading_fee)) AS trading_fee, sum(toUInt128(protocol_fee)) AS protocol_fee,
  sum(toUInt128(referral_fee)) AS referral_fee
FROM trades
GROUP BY mint, config;

TRUNCATE TABLE fees_1h;
TRUNCATE TABLE coin_fees_1d;
TRUNCATE TABLE coin_fees;

INSERT INTO fees_1h (hour, config, trades, volume, trading_fee, protocol_fee, referral_fee)
SELECT toStartOfHour(at) AS hour, config, toUInt64(count()), sum(toUInt128(amount_quote)), sum(toUInt128(trading_fee)),
  sum(toUInt128(protocol_fee)), sum(toUInt128(referral_fee))
FROM trades GROUP BY hour, config;

INSERT INTO coin_fees_1d
SELECT toDate(at) AS day, mint, config, sum(toUInt128(trading_fee)) FROM trades GROUP BY day, mint, config;

INSERT INTO coin_fees
SELECT mint, config, sum(toUInt128(trading_fee)), sum(toUInt128(protocol_fee)), sum(toUInt128(referral_fee))
FROM trades GROUP BY mint, config;
