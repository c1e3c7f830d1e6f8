-- The transaction ledger, keyed by (slot, signature) instead of signature alone.
--
-- Every write looks up the signatures it is given, to drop those already stored.
-- Keyed by signature, a lookup of a few thousand random signatures touches nearly
-- every granule, so it grew with the table (74 ms for 2,500 signatures at 10M
-- transactions, measured with chDB). A delivery's signatures come from a few
-- nearby slots, so keyed by slot first the lookup reads only those slots' granules
-- whatever the table's size (25 ms at 10M, most of it sending the signatures).
--
-- The rows move to a new table, `transactions`; the next migration drops the old
-- one. Re-runnable: a repeated copy adds rows the ReplacingMergeTree collapses.
-- Stop every writer before upgrading: a row written into the old table after the
-- copy would not be in the new ledger.
CREATE TABLE IF NOT EXISTS transactions (
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
ORDER BY (slot, signature);

INSERT INTO transactions SELECT * FROM raw_transactions;
