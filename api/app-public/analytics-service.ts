/**
 * GET /v1/analytics/overview?range=24h|7d|30d|all. Every figure is a sum of rollups
 * (`fees_1h`, `coin_fees_1d`, `coin_fees`: ClickHouse migration 0011) or of the small
 * treasury tables, never a scan of the trades (hidden coins' own trades excepted: a
 * handful of coins, read by their key and taken off the totals).
 *
 * Windows are whole hours: `24h` is the hour in progress and the 23 before it (7d: 168
 * hours, 30d: 720), `all` has no start. Claims and payouts in the window are those at or
 * after its first hour. topEarners counts whole UTC days: the days the window touches.
 */
import { lamportsToUsd } from "../../ingest/contract/market-math";
import { solUsdNow, type PublicDeps } from "../public/agents-service";
import {
  CLASSIFIED_TRANSFERS, PLATFORM_CLAIM, PRICE_OR_FIRST, agentsLive, excludedMints, holdersTotal, notIn, solConfigs, treasurySet, withSolPrice,
} from "./platform-reads";

export const RANGE_HOURS = { "24h": 24, "7d": 168, "30d": 720, all: null } as const;
export type Range = keyof typeof RANGE_HOURS;
export const TOP_EARNERS = 10;
export const RECENT_PAYOUTS = 20;

/** The window's first second (unix), the start of its first hour; 0 for `all`. */
export function windowStart(range: Range, nowSeconds: number): number {
  const hours = RANGE_HOURS[range];
  return hours === null ? 0 : Math.floor(nowSeconds / 3600) * 3600 - (hours - 1) * 3600;
}

const NEWEST = "at DESC, slot DESC, signature DESC, ix DESC, inner DESC";

type Sums = { config: string; trades: string; volume: string; tf: string; pf: string };

export async function analyticsOverview(deps: PublicDeps, range: Range, nowMs = Date.now()) {
  const since = windowStart(range, Math.floor(nowMs / 1000));
  const sinceDay = Math.floor(since / 86400) * 86400;
  const { hidden, stock } = await excludedMints(deps);
  const sol = solConfigs(deps);
  const treasury = treasurySet(deps);
  const pcts = sol.map((a) => deps.configs.byAddress.get(a)!.creatorPct);
  const lamportMints = [...new Set([...hidden, ...stock])];
  const p = { since, sinceDay, hidden, stock, sol, pcts, treasury, lamportMints, limit: TOP_EARNERS, recent: RECENT_PAYOUTS };
  const [all, ofHidden, earners, revenue, rewards, live, holders, solUsd] = await Promise.all([
    deps.ch.query<Sums>(
      `SELECT config, toString(sum(trades)) AS trades, toString(sum(volume)) AS volume, toString(sum(trading_fee)) AS tf, toString(sum(protocol_fee)) AS pf
       FROM fees_1h WHERE hour >= toDateTime({since:UInt32}, 'UTC') GROUP BY config`,
      p,
    ),
    hidden.length
      ? deps.ch.query<Sums>(
          `SELECT config, toString(count()) AS trades, toString(sum(amount_quote)) AS volume, toString(sum(trading_fee)) AS tf, toString(sum(protocol_fee)) AS pf
           FROM trades WHERE mint IN {hidden:Array(String)} AND at >= toDateTime({since:UInt32}, 'UTC') GROUP BY config`,
          p,
        )
      : [],
    // the creator's side of each coin's trading fees, floored per coin and config
    deps.ch.query<{ mint: string; lamports: string }>(
      `SELECT mint, toString(sum(intDiv(tf * toUInt128({pcts:Array(UInt8)}[indexOf({sol:Array(String)}, config)]), 100))) AS lamports
       FROM (SELECT mint, config, sum(trading_fee) AS tf FROM ${range === "all" ? "coin_fees WHERE 1" : "coin_fees_1d WHERE day >= toDate(toDateTime({sinceDay:UInt32}, 'UTC'))"}
             AND config IN {sol:Array(String)} ${notIn("hidden", hidden)} GROUP BY mint, config)
       GROUP BY mint HAVING sum(tf) > 0 ORDER BY toUInt128(lamports) DESC, mint LIMIT {limit:UInt32}`,
      p,
    ),
    deps.ch.query<{ day: string; lamports: string; usd: number | null }>(
      `SELECT toString(c.day) AS day, toString(sum(c.lamports)) AS lamports, sum(toFloat64(c.lamports) * ${PRICE_OR_FIRST}) / 1e9 AS usd
       FROM ${withSolPrice(`SELECT 0 AS k, toStartOfMinute(at) AS minute, toDate(at) AS day, quote_amount AS lamports FROM fee_claims
                            WHERE at >= toDateTime({since:UInt32}, 'UTC') AND ${PLATFORM_CLAIM} ${notIn("stock", stock)}`, "since")}
       GROUP BY c.day ORDER BY c.day SETTINGS join_use_nulls = 1`,
      p,
    ),
    // creator rewards, all time (creators' own fee claims and the treasury's payouts to creators), and recent payouts:
    // one classification of the treasury's transfers for both; each side of recent payouts cut to the page, then merged
    // (every key DESC: a tuple sorted in reverse is NEWEST's order)
    deps.ch.query<{ lamports: string; usd: number | null; recent: [string, string, string, number, string][] }>(
      `SELECT toString(sumIf(c.lamports, c.reward = 1)) AS lamports, sumIf(toFloat64(c.lamports) * ${PRICE_OR_FIRST}, c.reward = 1) / 1e9 AS usd,
         arrayMap(x -> (x.6, x.7, toString(x.8), toUnixTimestamp(x.1), x.3), arraySlice(arrayReverseSort(arrayConcat(
           arraySlice(arrayReverseSort(groupArrayIf((c.at, c.slot, c.signature, c.ix, c.inner, c.kind, c.mint, c.lamports), c.listed = 1)), 1, {recent:UInt32}),
           (SELECT groupArray((at, slot, signature, ix, inner, kind, mint, lamports)) FROM (
              SELECT at, slot, signature, ix, inner, if(role = 'creator', 'creator_fee_claim', 'fee_claim') AS kind, mint, quote_amount AS lamports
              FROM fee_claims WHERE (role = 'creator' OR ${PLATFORM_CLAIM}) ${notIn("lamportMints", lamportMints)}
              ORDER BY ${NEWEST} LIMIT {recent:UInt32})))), 1, {recent:UInt32})) AS recent
       FROM ${withSolPrice(`SELECT 0 AS k, toStartOfMinute(at) AS minute, quote_amount AS lamports, toUInt8(1) AS reward, toUInt8(0) AS listed,
                              at, slot, signature, ix, inner, '' AS kind, mint
                            FROM fee_claims WHERE role = 'creator' ${notIn("stock", stock)}
                            UNION ALL
                            SELECT 0 AS k, toStartOfMinute(at) AS minute, lamports, toUInt8(payout = 'creator') AS reward,
                              toUInt8(${hidden.length ? "mint NOT IN {hidden:Array(String)}" : "1"}) AS listed, at, slot, signature, ix, inner, concat(payout, '_payout') AS kind, mint
                            FROM (${CLASSIFIED_TRANSFERS})`)}
       SETTINGS join_use_nulls = 1`,
      p,
    ),
    agentsLive(deps),
    holdersTotal(deps, hidden),
    solUsdNow(deps),
  ]);
  const net = new Map<string, { trades: bigint; volume: bigint; tf: bigint; pf: bigint }>();
  for (const [rows, sign] of [[all, 1n], [ofHidden, -1n]] as const)
    for (const r of rows) {
      const n = net.get(r.config) ?? { trades: 0n, volume: 0n, tf: 0n, pf: 0n };
      n.trades += sign * BigInt(r.trades);
      n.volume += sign * BigInt(r.volume || 0);
      n.tf += sign * BigInt(r.tf || 0);
      n.pf += sign * BigInt(r.pf || 0);
      net.set(r.config, n);
    }
  let trades = 0n, volume = 0n, tradingFees = 0n, protocolFees = 0n, creatorFees = 0n;
  for (const [config, n] of net) {
    trades += n.trades;
    const cfg = deps.configs.byAddress.get(config);
    if (cfg?.quote.kind !== "sol") continue;
    volume += n.volume;
    tradingFees += n.tf;
    protocolFees += n.pf;
    creatorFees += (n.tf * BigInt(cfg.creatorPct)) / 100n;
  }
  const configured = deps.configs.launch ?? deps.configs.all[0];
  const creatorBps = configured ? configured.creatorPct * 100 : 0;
  // the earners' names by the directory's key, not from the market board (its reload reads every coin)
  const names = new Map(
    earners.length
      ? (
          await deps.ch.query<{ mint: string; coin_name: string; symbol: string }>(
            `SELECT mint, argMax(coin_name, version) AS coin_name, argMax(symbol, version) AS symbol FROM agent_directory
             WHERE mint IN {mints:Array(String)} GROUP BY mint`,
            { mints: earners.map((e) => e.mint) },
          )
        ).map((r) => [r.mint, r])
      : [],
  );
  const series = revenue.map((d) => ({ day: d.day, lamports: d.lamports, usd: d.usd }));
  const revenueUsd = series.some((d) => d.usd === null) ? null : series.reduce((s, d) => s + d.usd!, 0);
  const reward = rewards[0];
  return {
    range,
    totals: {
      agentsLive: live,
      trades: Number(trades),
      volumeLamports: volume.toString(),
      volumeUsd: lamportsToUsd(volume, solUsd),
      tradingFeesLamports: tradingFees.toString(),
      protocolFeesLamports: protocolFees.toString(),
      holders,
    },
    revenue: { lamports: series.reduce((s, d) => s + BigInt(d.lamports), 0n).toString(), usd: revenueUsd, series },
    feeSplit: {
      creatorLamports: creatorFees.toString(),
      platformLamports: (tradingFees - creatorFees).toString(),
      protocolLamports: protocolFees.toString(),
      creatorBps,
      platformBps: configured ? 10_000 - creatorBps : 0,
    },
    creatorRewards: { lamports: reward?.lamports || "0", usd: reward && BigInt(reward.lamports || 0) > 0n ? reward.usd : 0 },
    topEarners: earners.map((e) => ({ mint: e.mint, name: names.get(e.mint)?.coin_name ?? "", symbol: names.get(e.mint)?.symbol ?? "", lamports: e.lamports })),
    recentPayouts: (reward?.recent ?? []).map(([kind, mint, lamports, at, signature]) => ({ kind, mint, lamports, at: new Date(Number(at) * 1000).toISOString(), signature })),
    at: new Date(nowMs).toISOString(),
  };
}
