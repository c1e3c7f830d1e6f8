-- DAMM v2 trades carry their coin's config (the DBC config the coin launched on), as curve
-- trades do: the swap event names no config, so the sink now stores the coin's (by mint, from
-- the registry) and this file fills the DAMM v2 trades stored before it from the directory
-- (`agent_directory`, each coin's newest row; a coin the directory does not know keeps '').
-- Until now a graduated coin's trades were in no per-config figure: the analytics overview's
-- volume and fees and the platform's all-time fees left them out (their config '' is no
-- SOL-quoted config).
--
-- `fees_1h` gains `curve_trading_fee`: the quote-currency trading fees of curve trades only,
-- the fees the DBC config splits between creator and platform (feeSplit); `trading_fee`,
-- `protocol_fee` and `referral_fee` now include DAMM v2 trades. `coin_fees` and
-- `coin_fees_span` (the creator side of trading fees: topEarners) sum curve trades only: a
-- DAMM v2 pool's trading fees go to its liquidity positions, not by the config's split.
-- Views made again, tables refilled from `trades` (emptied first, so a re-run copies exactly
-- once); every statement may run again after a crash. Stop the writers while upgrading (as
-- for 0011-0014).
ALTER TABLE trades UPDATE config = transform(mint,
    arrayMap(x -> x.1, (SELECT arraySort(groupArray((mint, config))) FROM (SELECT mint, argMax(config, version) AS config FROM agent_directory GROUP BY mint))),
    arrayMap(x -> x.2, (SELECT arraySort(groupArray((mint, config))) FROM (SELECT mint, argMax(config, version) AS config FROM agent_directory GROUP BY mint))),
    '')
WHERE venue = 'damm_v2' AND config = ''
SETTINGS mutations_sync = 2, allow_nondeterministic_mutations = 1;

ALTER TABLE fees_1h ADD COLUMN IF NOT EXISTS curve_trading_fee SimpleAggregateFunction(sum, UInt128);

DROP VIEW IF EXISTS fees_1h_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS fees_1h_mv TO fees_1h AS
SELECT toStartOfHour(at) AS hour, config, toUInt64(count()) AS trades, sum(toUInt128(amount_quote)) AS volume,
  sumIf(toUInt128(trading_fee), fee_in_base = 0) AS trading_fee, sumIf(toUInt128(protocol_fee), fee_in_base = 0) AS protocol_fee,
  sumIf(toUInt128(referral_fee), fee_in_base = 0) AS referral_fee, sumIf(toUInt128(trades.trading_fee), fee_in_base = 0 AND venue = 'dbc') AS curve_trading_fee
FROM trades
GROUP BY hour, config;

DROP VIEW IF EXISTS coin_fees_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_mv TO coin_fees AS
SELECT mint, config, sumIf(toUInt128(trading_fee), fee_in_base = 0) AS trading_fee, sumIf(toUInt128(protocol_fee), fee_in_base = 0) AS protocol_fee,
  sumIf(toUInt128(referral_fee), fee_in_base = 0) AS referral_fee
FROM trades
WHERE venue = 'dbc'
GROUP BY mint, config;

DROP VIEW IF EXISTS coin_fees_span_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_span_mv TO coin_fees_span AS
SELECT level, toDate(intDiv(toUInt16(day), bitShiftLeft(toUInt16(1), level)) * bitShiftLeft(toUInt16(1), level)) AS start, mint, config,
  sum(fee) AS trading_fee
FROM (SELECT toDate(at) AS day, mint, config, sumIf(toUInt128(trading_fee), fee_in_base = 0) AS fee FROM trades WHERE venue = 'dbc' GROUP BY day, mint, config)
ARRAY JOIN [0, 1, 2, 3, 4, 5] AS level
GROUP BY level, start, mint, config;

TRUNCATE TABLE fees_1h;
TRUNCATE TABLE coin_fees;
TRUNCATE TABLE coin_fees_span;

INSERT INTO fees_1h (hour, config, trades, volume, trading_fee, protocol_fee, referral_fee, curve_trading_fee)
SELECT toStartOfHour(at) AS hour, config, toUInt64(count()), sum(toUInt128(amount_quote)), sumIf(toUInt128(trading_fee), fee_in_base = 0),
  sumIf(toUInt128(protocol_fee), fee_in_base = 0), sumIf(toUInt128(referral_fee), fee_in_base = 0),
  sumIf(toUInt128(trading_fee), fee_in_base = 0 AND venue = 'dbc')
FROM trades GROUP BY hour, config;

INSERT INTO coin_fees
SELECT mint, config, sumIf(toUInt128(trading_fee), fee_in_base = 0), sumIf(toUInt128(protocol_fee), fee_in_base = 0),
  sumIf(toUInt128(referral_fee), fee_in_base = 0)
FROM trades WHERE venue = 'dbc' GROUP BY mint, config;

INSERT INTO coin_fees_span
SELECT level, toDate(intDiv(toUInt16(day), bitShiftLeft(toUInt16(1), level)) * bitShiftLeft(toUInt16(1), level)) AS start, mint, config, sum(fee)
FROM (SELECT toDate(at) AS day, mint, config, sumIf(toUInt128(trading_fee), fee_in_base = 0) AS fee FROM trades WHERE venue = 'dbc' GROUP BY day, mint, config)
ARRAY JOIN [0, 1, 2, 3, 4, 5] AS level
GROUP BY level, start, mint, config;
