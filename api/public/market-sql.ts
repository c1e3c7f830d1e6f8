/**
 * The SQL behind agent market fields. One directory row per coin (newest version),
 * joined with its market state, burns and 24 h volume. Market cap is exact:
 * floor(sqrt² × circulating supply / 2^128) lamports.
 */
export const DIRECTORY = `
  SELECT mint,
    argMax(name, version) AS name, argMax(coin_name, version) AS coin_name, argMax(symbol, version) AS symbol,
    argMax(category, version) AS category, argMax(hidden, version) AS hidden, argMax(created_at, version) AS created_at,
    argMax(supply_atoms, version) AS supply_atoms, argMax(start_sqrt_price, version) AS start_sqrt_price,
    argMax(decimals, version) AS decimals
  FROM agent_directory GROUP BY mint`;

export const MARKET = `
  SELECT mint,
    argMaxMerge(sqrt_price) AS sqrt_price, argMaxMerge(price_sol) AS price_sol, argMaxMerge(pool) AS pool,
    argMaxMerge(venue) AS venue, argMaxMerge(quote_reserve) AS quote_reserve, max(migration_threshold) AS migration_threshold,
    min(first_at) AS first_at, max(last_at) AS last_at, sum(trades) AS trades, sum(volume_sol) AS volume_sol
  FROM market_state GROUP BY mint`;

export const VOLUME_24H = `
  SELECT mint, sum(volume_sol) AS volume_24h, sum(trades) AS trades_24h
  FROM volume_1m WHERE minute >= {since:DateTime('UTC')} GROUP BY mint`;

export const BURNED = `SELECT mint, sum(burned) AS burned FROM burn_totals GROUP BY mint`;

/** Columns every agents query returns. */
export const MARKET_COLUMNS = `
  d.mint AS mint, d.name AS name, d.coin_name AS coin_name, d.symbol AS symbol, d.category AS category,
  toUnixTimestamp64Milli(d.created_at) AS created_ms, d.decimals AS decimals,
  toString(if(m.mint = '', d.start_sqrt_price, m.sqrt_price)) AS sqrt_price,
  if(m.mint = '', 0, m.price_sol) AS traded_price_sol,
  m.mint != '' AS has_trades,
  m.venue AS venue, toString(m.quote_reserve) AS quote_reserve, toString(m.migration_threshold) AS migration_threshold,
  if(m.mint = '', NULL, m.first_at) AS first_at, if(m.mint = '', NULL, m.last_at) AS last_at,
  toString(m.volume_sol) AS volume_all,
  toString(v.volume_24h) AS volume_24h,
  toString(greatest(toInt256(d.supply_atoms) - toInt256(b.burned), toInt256(0))) AS circulating_atoms,
  toString(intDiv(toUInt256(if(m.mint = '', d.start_sqrt_price, m.sqrt_price)) * toUInt256(if(m.mint = '', d.start_sqrt_price, m.sqrt_price))
    * toUInt256(greatest(toInt256(d.supply_atoms) - toInt256(b.burned), toInt256(0))),
    toUInt256('340282366920938463463374607431768211456'))) AS market_cap_lamports`;

export const FROM_JOINED = `
  FROM (${DIRECTORY}) AS d
  LEFT JOIN (${MARKET}) AS m ON m.mint = d.mint
  LEFT JOIN (${BURNED}) AS b ON b.mint = d.mint
  LEFT JOIN (${VOLUME_24H}) AS v ON v.mint = d.mint`;

export type MarketRow = {
  mint: string;
  name: string;
  coin_name: string;
  symbol: string;
  category: string;
  created_ms: string;
  decimals: number;
  sqrt_price: string;
  traded_price_sol: number;
  has_trades: number | boolean;
  venue: string;
  quote_reserve: string;
  migration_threshold: string;
  first_at: string | null;
  last_at: string | null;
  volume_all: string;
  volume_24h: string;
  circulating_atoms: string;
  market_cap_lamports: string;
};
