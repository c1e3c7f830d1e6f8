-- The public agent directory: what the agents list filters and sorts on, mirrored
-- from Postgres (the registry of record) whenever an agent changes. The newest
-- version of a row wins.
CREATE TABLE IF NOT EXISTS agent_directory (
  mint String,
  version UInt64,
  name String,
  coin_name String,
  symbol String,
  category LowCardinality(String),
  status LowCardinality(String),
  state LowCardinality(String),
  hidden UInt8,
  created_at DateTime64(3, 'UTC'),
  config String,
  decimals UInt8,
  supply_atoms UInt64,
  start_sqrt_price UInt128
) ENGINE = ReplacingMergeTree(version)
ORDER BY mint;

-- Public activity items that come from the chain (launches today; agents' own
-- actions arrive with the agents' workers). Trades are read from `trades`.
CREATE TABLE IF NOT EXISTS activity (
  mint String,
  at DateTime64(3, 'UTC'),
  id String,
  kind LowCardinality(String),
  text String,
  body Nullable(String),
  data String,
  links String
) ENGINE = ReplacingMergeTree
ORDER BY (mint, at, id);
