-- The token a trade's fees are in. A pool collecting fees in the output token (DBC
-- collect_fee_mode 1, the mainnet fee_in_both config; DAMM v2 collect_fee_mode 0, BothToken)
-- charges a buy's trading, protocol and referral fees in the coin it receives: those three
-- amounts are then the coin's atoms, not lamports. Sells always pay in the quote token.
-- `fee_in_base` = 1 marks such a trade (the sink writes it from the swap event, see
-- ingest/decoders/fee-currency.ts); lamport sums of fees take only rows with 0.
--
-- Rows stored before this file: a fee taken from a buy's input cannot exceed that input, so a
-- buy whose three fees add up to more than its quote amount paid them in the coin; a pool's
-- collect fee mode never changes, so every buy with fees of a pool that has such a buy paid in
-- the coin too (its costlier buys, whose fee in atoms is below their input in quote atoms,
-- included). Other rows stay 0 (quote). The rule reads only stored amounts, so applying it
-- again gives the same column: every statement below may run again after a crash.
--
-- The fee rollups of 0011 and 0013 (fees_1h, coin_fees, coin_fees_span) keep their tables and
-- columns and now sum quote-currency fees only: their views are made again and the tables
-- refilled from `trades` (emptied first, so a re-run copies exactly once). `trades_by_slot`
-- (0012, the export across coins) gets the column too. Stop every writer before upgrading: a
-- trade written while a view is dropped, or during a copy, would be missed or counted twice.
ALTER TABLE trades ADD COLUMN IF NOT EXISTS fee_in_base UInt8;

ALTER TABLE trades UPDATE fee_in_base = 1
WHERE side = 'buy' AND toUInt128(trading_fee) + protocol_fee + referral_fee > 0
  AND pool IN (SELECT pool FROM trades WHERE side = 'buy' AND toUInt128(trading_fee) + protocol_fee + referral_fee > amount_quote)
SETTINGS mutations_sync = 2;

ALTER TABLE trades_by_slot ADD COLUMN IF NOT EXISTS fee_in_base UInt8;

ALTER TABLE trades_by_slot UPDATE fee_in_base = 1
WHERE side = 'buy' AND toUInt128(trading_fee) + protocol_fee + referral_fee > 0
  AND pool IN (SELECT pool FROM trades_by_slot WHERE side = 'buy' AND toUInt128(trading_fee) + protocol_fee + referral_fee > amount_quote)
SETTINGS mutations_sync = 2;

DROP VIEW IF EXISTS trades_by_slot_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS trades_by_slot_mv TO trades_by_slot AS
SELECT slot, signature, ix, inner, at, mint, pool, venue, quote_mint, side, trader, amount_quote, amount_base, base_decimals, price_sol,
  trading_fee, protocol_fee, referral_fee, fee_in_base FROM trades;

-- The rollups: trades and volume as before, fees of quote-currency trades only.
DROP VIEW IF EXISTS fees_1h_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS fees_1h_mv TO fees_1h AS
SELECT toStartOfHour(at) AS hour, config, toUInt64(count()) AS trades, sum(toUInt128(amount_quote)) AS volume,
  sumIf(toUInt128(trading_fee), fee_in_base = 0) AS trading_fee, sumIf(toUInt128(protocol_fee), fee_in_base = 0) AS protocol_fee,
  sumIf(toUInt128(referral_fee), fee_in_base = 0) AS referral_fee
FROM trades
GROUP BY hour, config;

DROP VIEW IF EXISTS coin_fees_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_mv TO coin_fees AS
SELECT mint, config, sumIf(toUInt128(trading_fee), fee_in_base = 0) AS trading_fee, sumIf(toUInt128(protocol_fee), fee_in_base = 0) AS protocol_fee,
  sumIf(toUInt128(referral_fee), fee_in_base = 0) AS referral_fee
FROM trades
GROUP BY mint, config;

DROP VIEW IF EXISTS coin_fees_span_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_span_mv TO coin_fees_span AS
SELECT level, toDate(intDiv(toUInt16(day), bitShiftLeft(toUInt16(1), level)) * bitShiftLeft(toUInt16(1), level)) AS start, mint, config,
  sum(fee) AS trading_fee
FROM (SELECT toDate(at) AS day, mint, config, sumIf(toUInt128(trading_fee), fee_in_base = 0) AS fee FROM trades GROUP BY day, mint, config)
ARRAY JOIN [0, 1, 2, 3, 4, 5] AS level
GROUP BY level, start, mint, config;

TRUNCATE TABLE fees_1h;
TRUNCATE TABLE coin_fees;
TRUNCATE TABLE coin_fees_span;

INSERT INTO fees_1h (hour, config, trades, volume, trading_fee, protocol_fee, referral_fee)
SELECT toStartOfHour(at) AS hour, config, toUInt64(count()), sum(toUInt128(amount_quote)), sumIf(toUInt128(trading_fee), fee_in_base = 0),
  sumIf(toUInt128(protocol_fee), fee_in_base = 0), sumIf(toUInt128(referral_fee), fee_in_base = 0)
FROM trades GROUP BY hour, config;

INSERT INTO coin_fees
SELECT mint, config, sumIf(toUInt128(trading_fee), fee_in_base = 0), sumIf(toUInt128(protocol_fee), fee_in_base = 0),
  sumIf(toUInt128(referral_fee), fee_in_base = 0)
FROM trades GROUP BY mint, config;

INSERT INTO coin_fees_span
SELECT level, toDate(intDiv(toUInt16(day), bitShiftLeft(toUInt16(1), level)) * bitShiftLeft(toUInt16(1), level)) AS start, mint, config, sum(fee)
FROM (SELECT toDate(at) AS day, mint, config, sumIf(toUInt128(trading_fee), fee_in_base = 0) AS fee FROM trades GROUP BY day, mint, config)
ARRAY JOIN [0, 1, 2, 3, 4, 5] AS level
GROUP BY level, start, mint, config;
