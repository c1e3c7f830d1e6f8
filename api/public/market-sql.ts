/**
 * Reads the market rows behind agent objects: the directory (newest version per
 * coin), market state, burns and 24 h volume, as four small keyed reads joined
 * here by mint (ClickHouse joins of these sub-aggregates cost ten times more).
 * Market cap is exact: floor(sqrt² × circulating supply / 2^128) lamports.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import { valueAtSqrt } from "../../ingest/contract/market-math";

const where = (one: boolean, extra = "") => (one ? `WHERE mint = {mint:String} ${extra}` : extra ? `WHERE ${extra.replace(/^AND /, "")}` : "");

const DIRECTORY = (one: boolean) => `
  SELECT mint,
    argMax(name, version) AS name, argMax(coin_name, version) AS coin_name, argMax(symbol, version) AS symbol,
    argMax(category, version) AS category, argMax(hidden, version) AS hidden,
    toString(toUnixTimestamp64Milli(argMax(created_at, version))) AS created_ms,
    toString(argMax(supply_atoms, version)) AS supply_atoms, toString(argMax(start_sqrt_price, version)) AS start_sqrt_price,
    argMax(decimals, version) AS decimals
  FROM agent_directory ${where(one)} GROUP BY mint`;

const MARKET = (one: boolean) => `
  SELECT mint,
    toString(argMaxMerge(sqrt_price)) AS sqrt_price, argMaxMerge(price_sol) AS price_sol,
    argMaxMerge(venue) AS venue, toString(argMaxMerge(quote_reserve)) AS quote_reserve,
    toString(max(migration_threshold)) AS migration_threshold,
    toUnixTimestamp(min(first_at)) AS first_at, toUnixTimestamp(max(last_at)) AS last_at, toString(sum(volume_sol)) AS volume_all
  FROM market_state ${where(one)} GROUP BY mint`;

const VOLUME_24H = (one: boolean) => `
  SELECT mint, toString(sum(volume_sol)) AS volume_24h
  FROM volume_1m WHERE minute >= toDateTime({since:UInt32}, 'UTC') ${one ? "AND mint = {mint:String}" : ""} GROUP BY mint`;

const MIGRATIONS = (one: boolean) =>
  `SELECT mint, argMax(damm_pool, slot) AS damm_pool FROM pool_events WHERE kind = 'migration' ${one ? "AND mint = {mint:String}" : ""} GROUP BY mint`;

/** Closes of the last trade before the cutoff minute within a two-day window, per coin (reads only that window). */
const CLOSE_IN_WINDOW = (one: boolean) => `
  SELECT mint, argMaxMerge(close) AS price FROM volume_1m
  WHERE minute >= toDateTime({from:UInt32}, 'UTC') AND minute < toStartOfMinute(toDateTime({cutoff:UInt32}, 'UTC'))
    ${one ? "AND mint = {mint:String}" : ""}
  GROUP BY mint`;

/** The same for coins whose last trade before the cutoff is older than the window (keyed by coin). */
const CLOSE_BEFORE = `
  SELECT mint, argMaxMerge(close) AS price FROM candles_1m
  WHERE mint IN {mints:Array(String)} AND minute < toStartOfMinute(toDateTime({cutoff:UInt32}, 'UTC'))
  GROUP BY mint`;

const BURNED = (one: boolean) => `SELECT mint, toString(sum(burned)) AS burned FROM burn_totals ${where(one)} GROUP BY mint`;

export type MarketRow = {
  mint: string;
  name: string;
  coin_name: string;
  symbol: string;
  /** coin name, ticker and agent name, lowercased once for `q` */
  searchText: string;
  category: string;
  hidden: number;
  createdMs: number;
  decimals: number;
  sqrtPrice: bigint;
  /** price of the last trade; null before the first trade */
  tradedPriceSol: number | null;
  venue: string;
  quoteReserve: bigint;
  migrationThreshold: bigint;
  /** unix seconds of the first and last trade; null before the first trade */
  firstAt: number | null;
  lastAt: number | null;
  /** the DAMM v2 pool once graduated */
  dammPool: string | null;
  /** price of the last trade at least 24 h old; null when the coin is younger than 24 h */
  priceDayAgo: number | null;
  volumeAll: bigint;
  volume24h: bigint;
  marketCap: bigint;
};

type Dir = { mint: string; name: string; coin_name: string; symbol: string; category: string; hidden: number; created_ms: string; supply_atoms: string; start_sqrt_price: string; decimals: number };
type Mkt = { mint: string; sqrt_price: string; price_sol: number; venue: string; quote_reserve: string; migration_threshold: string; first_at: number; last_at: number; volume_all: string };

/** Every coin's market row, or one coin's (`mint`). */
/**
 * Day-ago prices of every coin, kept between board loads: the reference point moves one
 * minute per minute, so re-reading it every minute (not every load) is enough.
 */
export type DayAgoCache = { at: number; prices: Map<string, number> } | null;
const DAY_AGO_MAX_AGE_S = 60;

export async function readMarketRows(
  ch: ClickHouse,
  mint: string | null,
  nowSeconds = Math.floor(Date.now() / 1000),
  dayAgoCache?: { current: DayAgoCache },
): Promise<MarketRow[]> {
  const one = mint !== null;
  const cutoff = nowSeconds - 86400;
  const params = { mint, since: cutoff, cutoff, from: cutoff - 2 * 86400 };
  const [dirs, markets, volumes, burns, migrations, closes] = await Promise.all([
    ch.query<Dir>(DIRECTORY(one), params),
    ch.query<Mkt>(MARKET(one), params),
    ch.query<{ mint: string; volume_24h: string }>(VOLUME_24H(one), params),
    ch.query<{ mint: string; burned: string }>(BURNED(one), params),
    ch.query<{ mint: string; damm_pool: string }>(MIGRATIONS(one), params),
    dayAgoCache?.current && nowSeconds - dayAgoCache.current.at < DAY_AGO_MAX_AGE_S
      ? null
      : ch.query<{ mint: string; price: number }>(CLOSE_IN_WINDOW(one), params),
  ]);
  const market = new Map(markets.map((m) => [m.mint, m]));
  const volume = new Map(volumes.map((v) => [v.mint, BigInt(v.volume_24h)]));
  const burned = new Map(burns.map((b) => [b.mint, BigInt(b.burned)]));
  const damm = new Map(migrations.map((m) => [m.mint, m.damm_pool]));
  let dayAgo: Map<string, number>;
  if (closes) {
    dayAgo = new Map(closes.map((c) => [c.mint, c.price]));
    if (dayAgoCache) dayAgoCache.current = { at: nowSeconds, prices: dayAgo };
  } else dayAgo = dayAgoCache!.current!.prices;

  // A coin whose last trade is older than the cutoff: that trade is the reference (change 0).
  // One that traded since but not in the window: read its candles (rare, keyed by coin).
  const needsOlder = markets.filter((m) => Number(m.first_at) <= cutoff && Number(m.last_at) > cutoff && !dayAgo.has(m.mint)).map((m) => m.mint);
  if (needsOlder.length) {
    for (const c of await ch.query<{ mint: string; price: number }>(CLOSE_BEFORE, { mints: needsOlder, cutoff })) dayAgo.set(c.mint, c.price);
  }

  const toRow = (d: Dir): MarketRow => {
    const m = market.get(d.mint);
    const sqrtPrice = BigInt(m?.sqrt_price ?? d.start_sqrt_price);
    const supply = BigInt(d.supply_atoms) - (burned.get(d.mint) ?? 0n);
    const firstAt = m ? Number(m.first_at) : null;
    const lastAt = m ? Number(m.last_at) : null;
    const priceDayAgo =
      !m || firstAt! > cutoff ? null : lastAt! <= cutoff ? m.price_sol : (dayAgo.get(d.mint) ?? null);
    return {
      mint: d.mint,
      name: d.name,
      coin_name: d.coin_name,
      symbol: d.symbol,
      searchText: `${d.coin_name}\u0000${d.symbol}\u0000${d.name}`.toLowerCase(),
      category: d.category,
      hidden: Number(d.hidden),
      createdMs: Number(d.created_ms),
      decimals: d.decimals,
      sqrtPrice,
      tradedPriceSol: m ? m.price_sol : null,
      venue: m?.venue ?? "",
      quoteReserve: BigInt(m?.quote_reserve ?? "0"),
      migrationThreshold: BigInt(m?.migration_threshold ?? "0"),
      firstAt,
      lastAt,
      dammPool: damm.get(d.mint) ?? null,
      priceDayAgo,
      volumeAll: BigInt(m?.volume_all ?? "0"),
      volume24h: volume.get(d.mint) ?? 0n,
      marketCap: valueAtSqrt(sqrtPrice, supply > 0n ? supply : 0n),
    };
  };
  // Built in slices, yielding between them, so a full board never holds the event loop for long.
  const out: MarketRow[] = [];
  for (let i = 0; i < dirs.length; i += 1000) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    for (const d of dirs.slice(i, i + 1000)) out.push(toRow(d));
  }
  return out;
}
