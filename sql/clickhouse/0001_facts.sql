-- Facts from the chain. Every fact row carries its deterministic key
-- (signature, ix, inner). The pipeline inserts a key only once (it checks each
-- table before inserting), and the ReplacingMergeTree engines keep a stray
-- duplicate from ever surviving a merge.

-- Every transaction the ingest saw, with what decoding made of it. The original
-- payload is kept whenever something was not understood (undecodable, unknown
-- discriminators, decode errors), so it can be replayed once a decoder learns it.
CREATE TABLE IF NOT EXISTS raw_transactions (
  signature String,
  slot UInt64,
  block_time DateTime('UTC'),
  received_at DateTime64(3, 'UTC'),
  source LowCardinality(String),
  status LowCardinality(String),
  fact_count UInt16,
  unknown_count UInt16,
  error_count UInt16,
  detail String,
  payload String CODEC(ZSTD(3))
) ENGINE = ReplacingMergeTree
ORDER BY signature;

CREATE TABLE IF NOT EXISTS trades (
  mint String,
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  at DateTime('UTC'),
  venue LowCardinality(String),
  pool String,
  config String,
  quote_mint String,
  side LowCardinality(String),
  trader String,
  amount_quote UInt64,
  amount_base UInt64,
  sqrt_price UInt128,
  quote_reserve UInt64,
  migration_threshold UInt64,
  trading_fee UInt64,
  protocol_fee UInt64,
  referral_fee UInt64,
  base_decimals UInt8,
  price_sol Float64
) ENGINE = ReplacingMergeTree
ORDER BY (mint, slot, signature, ix, inner);

-- Pool lifecycle: kind = pool_created | curve_complete | migration.
CREATE TABLE IF NOT EXISTS pool_events (
  mint String,
  kind LowCardinality(String),
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  at DateTime('UTC'),
  pool String,
  config String,
  quote_mint String,
  creator String,
  damm_pool String,
  name String,
  symbol String,
  uri String,
  base_reserve UInt64,
  quote_reserve UInt64,
  sqrt_price UInt128
) ENGINE = ReplacingMergeTree
ORDER BY (mint, kind, slot, signature, ix, inner);

-- Fee claims (kind = trading_fee) and surplus withdrawals (kind = surplus).
-- role = partner | creator | position.
CREATE TABLE IF NOT EXISTS fee_claims (
  mint String,
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  at DateTime('UTC'),
  kind LowCardinality(String),
  venue LowCardinality(String),
  role LowCardinality(String),
  pool String,
  claimer String,
  base_amount UInt64,
  quote_amount UInt64
) ENGINE = ReplacingMergeTree
ORDER BY (mint, slot, signature, ix, inner);

CREATE TABLE IF NOT EXISTS burns (
  mint String,
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  at DateTime('UTC'),
  account String,
  authority String,
  amount UInt64,
  program LowCardinality(String)
) ENGINE = ReplacingMergeTree
ORDER BY (mint, slot, signature, ix, inner);
