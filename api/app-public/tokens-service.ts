/**
 * Coins of the Application API: the list, one coin, its candles. Built on the Data API's
 * market board and registry reads, so a coin's `market` is the Data API agent's `market`,
 * and the same coins are visible (hidden agents are absent / 404).
 */
import { formatUnits } from "../../ingest/contract/market-math";
import type { ConfigRegistry } from "../../ingest/contract/configs";
import { boardPage, marketOf, publicMarketRow, registryRows, solUsdNow, type PublicDeps, type RegistryRow } from "../public/agents-service";
import type { MarketRow } from "../public/market-sql";
import { notFound } from "../errors";
import { holderCounts } from "../../pipelines/holders/read";

/** Newest/biggest first (`trending`: by 24 h volume), ties by mint; cursors of this list only. */
export async function listTokens(deps: PublicDeps, q: { sort: "new" | "marketcap" | "trending"; q?: string; limit: number; cursor?: string }) {
  const { rows, nextCursor } = await boardPage(deps, "tokens", q);
  return { items: await toCoins(deps, rows), nextCursor };
}

export async function getToken(deps: PublicDeps, mint: string) {
  const [coin] = await toCoins(deps, [await publicMarketRow(deps, mint)]);
  if (!coin) throw notFound(`no platform coin with mint ${mint}`);
  return coin;
}

/** 404 unless the coin is public (on the board, not hidden in the directory or the registry). */
export async function assertPublicCoin(deps: PublicDeps, mint: string): Promise<void> {
  await publicMarketRow(deps, mint);
  const a = (await registryRows(deps, [mint])).get(mint);
  if (!a || a.hidden) throw notFound(`no platform coin with mint ${mint}`);
}

async function toCoins(deps: PublicDeps, rows: MarketRow[]) {
  if (rows.length === 0) return [];
  const mints = rows.map((r) => r.mint);
  const [reg, solUsd, holders] = await Promise.all([registryRows(deps, mints), solUsdNow(deps), holderCounts(deps.ch, mints)]);
  return rows.flatMap((row) => {
    const a = reg.get(row.mint);
    return !a || a.hidden ? [] : [coinOf(deps.configs, row, a, solUsd, holders.byMint.get(row.mint) ?? 0)];
  });
}

/**
 * A coin: `pool` is the pool it was launched in (the DBC pool, fixed for life);
 * `market.pool` is where it trades now (the DAMM v2 pool once graduated). `agent` is null
 * while the agent is still forming (its launch not yet seen on-chain); its `name` is ""
 * when the operator gave none. `holders`: owners with a positive balance (pipelines/holders/),
 * 0 until counted; the Data API's `market.holders` stays null as its contract says.
 */
export function coinOf(configs: ConfigRegistry, row: MarketRow, a: RegistryRow, solUsd: number, holders: number) {
  return {
    mint: row.mint,
    name: row.coin_name,
    symbol: row.symbol,
    imageUrl: a.image_url,
    description: a.description,
    creator: a.creator,
    pool: a.dbc_pool,
    createdAt: new Date(row.createdMs).toISOString(),
    market: marketOf(configs, row, a, solUsd),
    holders,
    agent: a.state === "forming" ? null : { name: a.name ?? "", template: a.template, presence: a.presence, traits: Array.isArray(a.traits) ? a.traits.map(String) : [] },
  };
}

/** A bucket as read: USD parts raw (priced: every minute of it has a price at or before it), combined below. */
type CandleRow = {
  t: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: string;
  trades: string;
  priced: number;
  open_price: number;
  close_price: number;
  high_usd: number;
  low_usd: number;
  volume_usd: number;
};

/**
 * OHLCV of one coin, curve and DAMM v2 trades in one series, oldest first: the one-minute
 * candles (`candles_1m`) merged into buckets of `step` seconds in ClickHouse. Open and
 * close are the first and last trade in chain order (slot, instruction); intervals
 * without trades are left out. USD: each minute joined with its SOL price
 * (`sol_price_1m`, the last recorded at or before the minute: ASOF JOIN, which needs an
 * equality column, hence the constant `k`); open × the price of the bucket's first
 * minute, close × its last, high/low the extremes of each minute's high/low × its price,
 * volume the sum of each minute's SOL volume × its price. Null when a minute of the
 * bucket has no price at or before it.
 */
export async function candles(deps: PublicDeps, mint: string, w: { interval: string; step: number; from: number; to: number }) {
  const [, rows] = await Promise.all([
    assertPublicCoin(deps, mint),
    w.from >= w.to
      ? []
      : deps.ch.query<CandleRow>(
          // the USD figures are multiplied out below, not in the engine (it plans each expression: ~1.5 ms of CPU less)
          `SELECT intDiv(toUnixTimestamp(c.minute), {step:UInt32}) * {step:UInt32} AS t,
             argMinMerge(c.open) AS open, max(c.high) AS high, min(c.low) AS low, argMaxMerge(c.close) AS close,
             sum(c.volume_sol) AS volume, sum(c.trades) AS trades,
             countIf(isNull(p.usd)) = 0 AS priced,
             argMin(ifNull(p.usd, 0), c.minute) AS open_price, argMax(ifNull(p.usd, 0), c.minute) AS close_price,
             max(c.high * ifNull(p.usd, 0)) AS high_usd, min(c.low * ifNull(p.usd, 0)) AS low_usd,
             sum(toFloat64(c.volume_sol) * ifNull(p.usd, 0)) AS volume_usd
           FROM (
             SELECT 0 AS k, minute, open, high, low, close, volume_sol, trades FROM candles_1m
             WHERE mint = {mint:String} AND minute >= toDateTime({from:UInt32}, 'UTC') AND minute < toDateTime({to:UInt32}, 'UTC')
           ) AS c
           ASOF LEFT JOIN (
             -- the window's prices, and a day before it for a candle's first minutes (not the whole history)
             SELECT 0 AS k, minute, usd FROM sol_price_1m FINAL
             WHERE minute >= toDateTime({from:UInt32}, 'UTC') - INTERVAL 1 DAY AND minute < toDateTime({to:UInt32}, 'UTC')
           ) AS p ON c.k = p.k AND c.minute >= p.minute
           GROUP BY t
           ORDER BY t
           SETTINGS join_use_nulls = 1`,
          { mint, step: w.step, from: w.from, to: w.to },
        ),
  ]);
  return {
    mint,
    interval: w.interval,
    items: rows.map((c) => ({
      time: new Date(Number(c.t) * 1000).toISOString(),
      open: c.open,
      high: c.high,
      low: c.low,
      close: c.close,
      volumeSol: formatUnits(BigInt(c.volume), 9),
      trades: Number(c.trades),
      openUsd: c.priced ? c.open * c.open_price : null,
      highUsd: c.priced ? c.high_usd : null,
      lowUsd: c.priced ? c.low_usd : null,
      closeUsd: c.priced ? c.close * c.close_price : null,
      volumeUsd: c.priced ? c.volume_usd / 1e9 : null,
    })),
  };
}
