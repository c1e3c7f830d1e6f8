/**
 * Reads the market rows behind agent objects: the directory (newest version per
 * coin), market state, burns and 24 h volume, as four small keyed reads joined
 * here by mint (ClickHouse joins of these sub-aggregates cost ten times more).
 * Market cap is exact: floor(sqrt² × circulating supply / 2^128) lamports.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import { valueAtSqrt } from "../../pipelines/platform/configs";

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
    min(first_at) AS first_at, max(last_at) AS last_at, toString(sum(volume_sol)) AS volume_all
  FROM market_state ${where(one)} GROUP BY mint`;

const VOLUME_24H = (one: boolean) => `
  SELECT mint, toString(sum(volume_sol)) AS volume_24h
  FROM volume_1m WHERE minute >= toDateTime({since:UInt32}, 'UTC') ${one ? "AND mint = {mint:String}" : ""} GROUP BY mint`;

const BURNED = (one: boolean) => `SELECT mint, toString(sum(burned)) AS burned FROM burn_totals ${where(one)} GROUP BY mint`;

export type MarketRow = {
  mint: string;
  name: string;
  coin_name: string;
  symbol: string;
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
  firstAt: string | null;
  lastAt: string | null;
  volumeAll: bigint;
  volume24h: bigint;
  marketCap: bigint;
};

type Dir = { mint: string; name: string; coin_name: string; symbol: string; category: string; hidden: number; created_ms: string; supply_atoms: string; start_sqrt_price: string; decimals: number };
type Mkt = { mint: string; sqrt_price: string; price_sol: number; venue: string; quote_reserve: string; migration_threshold: string; first_at: string; last_at: string; volume_all: string };

/** Every coin's market row, or one coin's (`mint`). */
export async function readMarketRows(ch: ClickHouse, mint: string | null, nowSeconds = Math.floor(Date.now() / 1000)): Promise<MarketRow[]> {
  const one = mint !== null;
  const params = { mint, since: nowSeconds - 86400 };
  const [dirs, markets, volumes, burns] = await Promise.all([
    ch.query<Dir>(DIRECTORY(one), params),
    ch.query<Mkt>(MARKET(one), params),
    ch.query<{ mint: string; volume_24h: string }>(VOLUME_24H(one), params),
    ch.query<{ mint: string; burned: string }>(BURNED(one), params),
  ]);
  const market = new Map(markets.map((m) => [m.mint, m]));
  const volume = new Map(volumes.map((v) => [v.mint, BigInt(v.volume_24h)]));
  const burned = new Map(burns.map((b) => [b.mint, BigInt(b.burned)]));
  return dirs.map((d) => {
    const m = market.get(d.mint);
    const sqrtPrice = BigInt(m?.sqrt_price ?? d.start_sqrt_price);
    const supply = BigInt(d.supply_atoms) - (burned.get(d.mint) ?? 0n);
    return {
      mint: d.mint,
      name: d.name,
      coin_name: d.coin_name,
      symbol: d.symbol,
      category: d.category,
      hidden: Number(d.hidden),
      createdMs: Number(d.created_ms),
      decimals: d.decimals,
      sqrtPrice,
      tradedPriceSol: m ? m.price_sol : null,
      venue: m?.venue ?? "",
      quoteReserve: BigInt(m?.quote_reserve ?? "0"),
      migrationThreshold: BigInt(m?.migration_threshold ?? "0"),
      firstAt: m?.first_at ?? null,
      lastAt: m?.last_at ?? null,
      volumeAll: BigInt(m?.volume_all ?? "0"),
      volume24h: volume.get(d.mint) ?? 0n,
      marketCap: valueAtSqrt(sqrtPrice, supply > 0n ? supply : 0n),
    };
  });
}
