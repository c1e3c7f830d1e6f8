-- Read models of the platform-wide reads (/v1/platform/stats, /v1/analytics/overview,
-- /v1/tokenomics, the feeds' creator_payout and platform_buyback items), so that a
-- request reads small tables in key order instead of classifying the treasury's payouts,
-- pricing claims and summing per-day rows itself. Every table below is filled by a
-- materialized view from the fact tables (or the directory mirror), and by the copy at
-- the end of this file from what is already stored. The copy empties each table first,
-- so a re-run of this file copies exactly once. Run migrations before the writers (as
-- `npm start` does): a row written during the copy may be both copied and seen by a view.
--
-- USD at write time. A claim's or a treasury transfer's USD is priced once, when it is
-- stored: lamports x the SOL price of its minute (`sol_price_1m`), or of the last minute
-- recorded before it. `usd` is that product in lamport-dollars (divide by 1e9 for USD),
-- so sums of it are exact whatever their order for prices in cents or halves. A row
-- stored before any price at or before its minute exists (older than the history, or
-- stored before the first price was ever recorded) has `priced` = 0 and `usd` = 0:
-- readers value it at the first price ever recorded, as before. A price recorded later
-- (the minute's own price arriving after a claim stored in the first seconds of that
-- minute, or a minute written again) does not change a stored row.

-- Fee claims with their USD and their coin's config (the directory's when the claim is
-- stored: the sink mirrors a coin's directory row before any of its facts; '' when none),
-- keyed by coin. Lamport sums leave out the claims of stock-paired coins (made on a config
-- paired with a stock: their amounts are stock atoms).
CREATE TABLE IF NOT EXISTS fee_claims_usd (
  mint String,
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  at DateTime('UTC'),
  role LowCardinality(String),
  claimer String,
  config String,
  lamports UInt64,
  usd Float64,
  priced UInt8
) ENGINE = ReplacingMergeTree
ORDER BY (mint, slot, signature, ix, inner);

-- The price join of a view reads only the prices from the last one at or before the
-- inserted block's oldest minute up to its newest, and the directory only for its coins (in a
-- view, every `fee_claims` below is the inserted block, not the table).
CREATE MATERIALIZED VIEW IF NOT EXISTS fee_claims_usd_mv TO fee_claims_usd AS
SELECT c.mint AS mint, c.slot AS slot, c.signature AS signature, c.ix AS ix, c.inner AS inner, c.at AS at, c.role AS role,
  c.claimer AS claimer, d.config AS config, c.quote_amount AS lamports, toFloat64(c.quote_amount) * p.usd AS usd, p.found AS priced
FROM (SELECT *, toUInt8(0) AS k, toStartOfMinute(at) AS minute FROM fee_claims) AS c
ASOF LEFT JOIN (
  SELECT toUInt8(0) AS k, minute, usd, toUInt8(1) AS found FROM sol_price_1m FINAL
  WHERE minute <= (SELECT max(at) FROM fee_claims)
    AND minute >= (SELECT max(minute) FROM sol_price_1m WHERE minute <= (SELECT toStartOfMinute(min(at)) FROM fee_claims))
) AS p ON c.k = p.k AND c.minute >= p.minute
LEFT JOIN (
  SELECT mint, argMax(config, version) AS config FROM agent_directory WHERE mint IN (SELECT mint FROM fee_claims) GROUP BY mint
) AS d ON c.mint = d.mint;

-- Claims newest first, for the overview's recent payouts (read from the end of the key). The
-- time-keyed and per-recipient tables below use 256-row granules: a read of the newest 20
-- decompresses one or two granules of every column it returns, not 8,192 rows' worth.
CREATE TABLE IF NOT EXISTS fee_claim_feed (
  at DateTime('UTC'),
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  mint String,
  role LowCardinality(String),
  claimer String,
  config String,
  lamports UInt64
) ENGINE = ReplacingMergeTree
ORDER BY (at, slot, signature, ix, inner)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS fee_claim_feed_mv TO fee_claim_feed AS
SELECT at, slot, signature, ix, inner, mint, role, claimer, config, lamports FROM fee_claims_usd
WHERE role IN ('creator', 'partner', 'position');

-- The treasury's sums, in one small table so that a request reads them all at once:
--   kind 'claim': per hour, role, claimer ('' for creators' claims) and the coin's config:
--                 the platform's revenue (partner claims, treasury DAMM v2 position claims)
--                 and creators' claimed rewards;
--   kind 'paid':  all time (hour 1970), per classification of the treasury's transfers when
--                 stored (role 'vault' | 'creator' | '' = no agent named the recipient then);
--                 the payouts classified otherwise since are in payout_reclassified;
--   kind 'flow':  all time, per kind of the treasury's flows (role 'transfer' | 'buyback').
-- `rows` counts what was summed (a reader that takes rows off knows what is left); `usd` is
-- in lamport-dollars; `unpriced` the lamports stored before any price (valued at the first).
CREATE TABLE IF NOT EXISTS treasury_sums (
  kind LowCardinality(String),
  hour DateTime('UTC'),
  role LowCardinality(String),
  claimer String,
  config String,
  rows SimpleAggregateFunction(sum, UInt64),
  lamports SimpleAggregateFunction(sum, UInt128),
  usd SimpleAggregateFunction(sum, Float64),
  unpriced SimpleAggregateFunction(sum, UInt128),
  atoms SimpleAggregateFunction(sum, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY (kind, hour, role, claimer, config);

CREATE MATERIALIZED VIEW IF NOT EXISTS treasury_sums_claims_mv TO treasury_sums AS
SELECT 'claim' AS kind, h AS hour, r AS role, who AS claimer, cfg AS config, toUInt64(count()) AS rows, sum(toUInt128(l)) AS lamports,
  sum(u) AS usd, sumIf(toUInt128(l), p = 0) AS unpriced, toUInt128(0) AS atoms
FROM (SELECT toStartOfHour(at) AS h, role AS r, if(role = 'creator', '', claimer) AS who, config AS cfg, lamports AS l, usd AS u, priced AS p FROM fee_claims_usd)
GROUP BY h, r, who, cfg;

-- Who a payout goes to, per wallet: `best` is the best of the agents naming the wallet,
-- as (is_vault, created_at, mint): an agent's vault outranks any creator, then the newest
-- agent, then the greatest mint; (0, 1970, '') when no agent names it. Each version of a
-- directory row names its vault and creator (a coin's wallets never change, so a wallet
-- once named stays named). One row per wallet once merged: about two per coin.
CREATE TABLE IF NOT EXISTS payout_wallets (
  wallet String,
  best SimpleAggregateFunction(max, Tuple(UInt8, DateTime64(3, 'UTC'), String))
) ENGINE = AggregatingMergeTree
ORDER BY wallet;

CREATE MATERIALIZED VIEW IF NOT EXISTS payout_wallets_mv TO payout_wallets AS
SELECT w.1 AS wallet, max(tuple(w.2, created_at, mint)) AS best
FROM agent_directory ARRAY JOIN [(vault, toUInt8(1)), (creator, toUInt8(0))] AS w
WHERE w.1 != ''
GROUP BY wallet;

-- The treasury's transfers by recipient, each with its USD and with how it was classified
-- when stored (`payout` 'vault' | 'creator' and `mint` the agent, from payout_wallets then;
-- '' when no agent named the recipient yet; `rank`: is_vault in the top bit, then the
-- agent's created_at in ms). A coin's payouts are read here by its wallets.
CREATE TABLE IF NOT EXISTS treasury_transfers (
  recipient String,
  at DateTime('UTC'),
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  lamports UInt64,
  usd Float64,
  priced UInt8,
  mint String,
  payout LowCardinality(String),
  rank UInt64
) ENGINE = ReplacingMergeTree
ORDER BY (recipient, at, slot, signature, ix, inner)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS treasury_transfers_mv TO treasury_transfers AS
SELECT f.recipient AS recipient, f.at AS at, f.slot AS slot, f.signature AS signature, f.ix AS ix, f.inner AS inner, f.lamports AS lamports,
  toFloat64(f.lamports) * p.usd AS usd, p.found AS priced, tupleElement(w.b, 3) AS mint,
  if(tupleElement(w.b, 3) = '', '', if(tupleElement(w.b, 1) = 1, 'vault', 'creator')) AS payout,
  if(tupleElement(w.b, 3) = '', toUInt64(0), bitOr(bitShiftLeft(toUInt64(tupleElement(w.b, 1)), 63), toUInt64(toUnixTimestamp64Milli(tupleElement(w.b, 2))))) AS rank
FROM (SELECT *, toUInt8(0) AS k, toStartOfMinute(at) AS minute FROM treasury_flows WHERE kind = 'transfer' AND recipient != '') AS f
ASOF LEFT JOIN (
  SELECT toUInt8(0) AS k, minute, usd, toUInt8(1) AS found FROM sol_price_1m FINAL
  WHERE minute <= (SELECT max(at) FROM treasury_flows)
    AND minute >= (SELECT max(minute) FROM sol_price_1m WHERE minute <= (SELECT toStartOfMinute(min(at)) FROM treasury_flows))
) AS p ON f.k = p.k AND f.minute >= p.minute
LEFT JOIN (
  SELECT wallet, max(best) AS b FROM payout_wallets WHERE wallet IN (SELECT recipient FROM treasury_flows) GROUP BY wallet
) AS w ON f.recipient = w.wallet;

CREATE MATERIALIZED VIEW IF NOT EXISTS treasury_sums_flows_mv TO treasury_sums AS
SELECT 'flow' AS kind, toDateTime(0, 'UTC') AS hour, k AS role, '' AS claimer, '' AS config, toUInt64(count()) AS rows, sum(toUInt128(l)) AS lamports,
  toFloat64(0) AS usd, toUInt128(0) AS unpriced, sum(toUInt128(a)) AS atoms
FROM (SELECT kind AS k, lamports AS l, atoms AS a FROM treasury_flows)
GROUP BY k;

CREATE MATERIALIZED VIEW IF NOT EXISTS treasury_sums_paid_mv TO treasury_sums AS
SELECT 'paid' AS kind, toDateTime(0, 'UTC') AS hour, k AS role, '' AS claimer, '' AS config, toUInt64(count()) AS rows, sum(toUInt128(l)) AS lamports,
  sum(u) AS usd, sumIf(toUInt128(l), p = 0) AS unpriced, toUInt128(0) AS atoms
FROM (SELECT payout AS k, lamports AS l, usd AS u, priced AS p FROM treasury_transfers)
GROUP BY k;

-- The treasury's transfers to agents, classified, newest first for the lists and feeds. A
-- transfer is written here when it is stored and its recipient is already named by an agent,
-- and again each time a directory row names its recipient (an agent that appears later, or
-- any later version of it), each time with the best classification known then; `rank` keeps
-- the best one (equal ranks: the later write, made knowing at least as much). `stored_as` is
-- its classification when stored. Transfers to wallets no agent names are not here. Readers
-- use FINAL. A transfer stored at the very moment its recipient's agent is first mirrored may
-- miss both writes; the agent's next mirror (any change of it) classifies it.
CREATE TABLE IF NOT EXISTS treasury_payouts (
  at DateTime('UTC'),
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  recipient String,
  lamports UInt64,
  usd Float64,
  priced UInt8,
  mint String,
  payout LowCardinality(String),
  rank UInt64,
  stored_as LowCardinality(String)
) ENGINE = ReplacingMergeTree(rank)
ORDER BY (at, slot, signature, ix, inner)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS treasury_payouts_transfer_mv TO treasury_payouts AS
SELECT at, slot, signature, ix, inner, recipient, lamports, usd, priced, mint, payout, rank, payout AS stored_as
FROM treasury_transfers WHERE payout != '';

CREATE MATERIALIZED VIEW IF NOT EXISTS treasury_payouts_directory_mv TO treasury_payouts AS
SELECT t.at AS at, t.slot AS slot, t.signature AS signature, t.ix AS ix, t.inner AS inner, t.recipient AS recipient, t.lamports AS lamports,
  t.usd AS usd, t.priced AS priced, tupleElement(w.b, 3) AS mint, if(tupleElement(w.b, 1) = 1, 'vault', 'creator') AS payout,
  bitOr(bitShiftLeft(toUInt64(tupleElement(w.b, 1)), 63), toUInt64(toUnixTimestamp64Milli(tupleElement(w.b, 2)))) AS rank, t.payout AS stored_as
FROM (
  SELECT c.wallet AS wallet, if(c.best > k.best, c.best, k.best) AS b
  FROM (
    SELECT w.1 AS wallet, max(tuple(w.2, created_at, mint)) AS best
    FROM agent_directory ARRAY JOIN [(vault, toUInt8(1)), (creator, toUInt8(0))] AS w WHERE w.1 != '' GROUP BY wallet
  ) AS c
  LEFT JOIN (
    SELECT wallet, max(best) AS best FROM payout_wallets
    WHERE wallet IN (SELECT arrayJoin([vault, creator]) FROM agent_directory) GROUP BY wallet
  ) AS k ON c.wallet = k.wallet
) AS w
INNER JOIN (
  SELECT * FROM treasury_transfers WHERE recipient IN (SELECT arrayJoin([vault, creator]) FROM agent_directory)
) AS t ON t.recipient = w.wallet;

-- The payouts classified otherwise than when they were stored (late: their agent appeared
-- after them; or a creator's wallet that became an agent's vault): few rows, read whole.
CREATE TABLE IF NOT EXISTS payout_reclassified (
  at DateTime('UTC'),
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  lamports UInt64,
  usd Float64,
  priced UInt8,
  payout LowCardinality(String),
  rank UInt64,
  stored_as LowCardinality(String)
) ENGINE = ReplacingMergeTree(rank)
ORDER BY (at, slot, signature, ix, inner);

CREATE MATERIALIZED VIEW IF NOT EXISTS payout_reclassified_mv TO payout_reclassified AS
SELECT at, slot, signature, ix, inner, lamports, usd, priced, payout, rank, stored_as FROM treasury_payouts WHERE payout != stored_as;

-- Per coin and config, the trading fees of aligned spans of days: level L holds the sums of
-- the 2^L days starting at `start` (a day number divisible by 2^L), L = 0..5 (1 to 32
-- days). Any window of whole days is a union of at most a few such spans, so the top
-- earners of 24h, 7d and 30d read a few rows per coin instead of one per coin and day.
-- Level 0 is the per-day rollup `coin_fees_1d` was; that table and its view are dropped.
CREATE TABLE IF NOT EXISTS coin_fees_span (
  level UInt8,
  start Date,
  mint String,
  config String,
  trading_fee SimpleAggregateFunction(sum, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY (level, start, mint, config);

CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_span_mv TO coin_fees_span AS
SELECT level, toDate(intDiv(toUInt16(day), bitShiftLeft(toUInt16(1), level)) * bitShiftLeft(toUInt16(1), level)) AS start, mint, config,
  sum(fee) AS trading_fee
FROM (SELECT toDate(at) AS day, mint, config, sum(toUInt128(trading_fee)) AS fee FROM trades GROUP BY day, mint, config)
ARRAY JOIN [0, 1, 2, 3, 4, 5] AS level
GROUP BY level, start, mint, config;

DROP TABLE IF EXISTS coin_fees_1d_mv;
DROP TABLE IF EXISTS coin_fees_1d;

-- The copy of what is stored. The directory's wallets before the transfers, so each
-- transfer copied is classified as it would have been when stored with every agent known.
TRUNCATE TABLE fee_claims_usd;
TRUNCATE TABLE fee_claim_feed;
TRUNCATE TABLE treasury_sums;
TRUNCATE TABLE payout_wallets;
TRUNCATE TABLE treasury_transfers;
TRUNCATE TABLE treasury_payouts;
TRUNCATE TABLE payout_reclassified;
TRUNCATE TABLE coin_fees_span;

INSERT INTO payout_wallets
SELECT w.1 AS wallet, max(tuple(w.2, created_at, mint)) AS best
FROM agent_directory ARRAY JOIN [(vault, toUInt8(1)), (creator, toUInt8(0))] AS w
WHERE w.1 != ''
GROUP BY wallet;

INSERT INTO treasury_transfers
SELECT f.recipient, f.at, f.slot, f.signature, f.ix, f.inner, f.lamports, toFloat64(f.lamports) * p.usd, p.found, tupleElement(w.b, 3),
  if(tupleElement(w.b, 3) = '', '', if(tupleElement(w.b, 1) = 1, 'vault', 'creator')),
  if(tupleElement(w.b, 3) = '', toUInt64(0), bitOr(bitShiftLeft(toUInt64(tupleElement(w.b, 1)), 63), toUInt64(toUnixTimestamp64Milli(tupleElement(w.b, 2)))))
FROM (SELECT *, toUInt8(0) AS k, toStartOfMinute(at) AS minute FROM treasury_flows WHERE kind = 'transfer' AND recipient != '') AS f
ASOF LEFT JOIN (SELECT toUInt8(0) AS k, minute, usd, toUInt8(1) AS found FROM sol_price_1m FINAL) AS p ON f.k = p.k AND f.minute >= p.minute
LEFT JOIN (SELECT wallet, max(best) AS b FROM payout_wallets GROUP BY wallet) AS w ON f.recipient = w.wallet;

INSERT INTO treasury_sums
SELECT 'flow', toDateTime(0, 'UTC'), kind, '', '', toUInt64(count()), sum(toUInt128(lamports)), toFloat64(0), toUInt128(0), sum(toUInt128(atoms))
FROM treasury_flows GROUP BY kind;

INSERT INTO fee_claims_usd
SELECT c.mint, c.slot, c.signature, c.ix, c.inner, c.at, c.role, c.claimer, d.config, c.quote_amount, toFloat64(c.quote_amount) * p.usd, p.found
FROM (SELECT *, toUInt8(0) AS k, toStartOfMinute(at) AS minute FROM fee_claims) AS c
ASOF LEFT JOIN (SELECT toUInt8(0) AS k, minute, usd, toUInt8(1) AS found FROM sol_price_1m FINAL) AS p ON c.k = p.k AND c.minute >= p.minute
LEFT JOIN (SELECT mint, argMax(config, version) AS config FROM agent_directory GROUP BY mint) AS d ON c.mint = d.mint;

INSERT INTO coin_fees_span
SELECT level, toDate(intDiv(toUInt16(day), bitShiftLeft(toUInt16(1), level)) * bitShiftLeft(toUInt16(1), level)) AS start, mint, config, sum(fee)
FROM (SELECT toDate(at) AS day, mint, config, sum(toUInt128(trading_fee)) AS fee FROM trades GROUP BY day, mint, config)
ARRAY JOIN [0, 1, 2, 3, 4, 5] AS level
GROUP BY level, start, mint, config;
