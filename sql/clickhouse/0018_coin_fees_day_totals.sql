-- Each UTC day's curve trading fees per config, in `coin_fees_span` as rows of level 255 (start = the
-- day, mint ''), written by the same view as the coin's spans, so a day's total and its coins' rows
-- are stored in the same part by the same insert. The analytics overview keeps each window's closed
-- days' per-coin sums between requests (api/app-public/top-earners.ts) and checks them at each read
-- against these totals: a trade stored later on a closed day (a backfill, a reconciliation heal)
-- changes its day's total, and the closed days are grouped again. Readers of the spans name their
-- levels (0-5), so they do not see these rows.
--
-- The view is made again and the totals filled from `trades` (those of level 255 deleted first, so a
-- re-run copies exactly once); every statement may run again after a crash. Stop the writers while
-- upgrading (as for 0011-0017).
DROP VIEW IF EXISTS coin_fees_span_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_span_mv TO coin_fees_span AS
SELECT level,
  if(level = 255, day, toDate(intDiv(toUInt16(day), bitShiftLeft(toUInt16(1), least(level, 5))) * bitShiftLeft(toUInt16(1), least(level, 5)))) AS start,
  if(level = 255, '', coin) AS mint, config, sum(fee) AS trading_fee
FROM (SELECT toDate(at) AS day, mint AS coin, config, sumIf(toUInt128(trading_fee), fee_in_base = 0) AS fee FROM trades WHERE venue = 'dbc' GROUP BY day, coin, config)
ARRAY JOIN [0, 1, 2, 3, 4, 5, 255] AS level
GROUP BY level, start, mint, config;

ALTER TABLE coin_fees_span DELETE WHERE level = 255 SETTINGS mutations_sync = 2;

INSERT INTO coin_fees_span (level, start, mint, config, trading_fee)
SELECT 255, toDate(at) AS day, '', config, sumIf(toUInt128(trading_fee), fee_in_base = 0)
FROM trades WHERE venue = 'dbc' GROUP BY day, config;
