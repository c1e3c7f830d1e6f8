/**
 * GET /v1/platform/stats: totals across public platform coins (the Data API's visibility
 * rule: hidden agents' coins are left out). Coins, volumes and market cap come from the
 * in-memory market board; trade counts, fees and holders from ClickHouse rollups, in one
 * read (a few rows per hour or minute, one per coin for holders; hidden coins' own trades,
 * read by their key, are taken off). Lamport sums cover coins quoted in SOL; a stock-paired
 * coin's amounts are stock atoms and are left out of them; so are the fees a buy paid in the coin
 * itself (`fee_in_base`, ClickHouse migration 0014: the rollups sum quote-currency fees only).
 */
import { formatUnits, lamportsToUsd } from "../../ingest/contract/market-math";
import { solUsdNow, type PublicDeps } from "../public/agents-service";
import { hiddenMints } from "../public/feed-service";
import { HOLDERS_TOTAL, NOT_SOL_MINTS, agentsLive, solConfigs } from "./platform-reads";
import { platformParts } from "../public/parts";

type Counts = { day: string; all: string; fees: string; hidden_day?: string; hidden_all?: string; hidden_fees?: string; holders: string | null; not_sol: string[] };

export async function platformStats(deps: PublicDeps, nowMs = Date.now()) {
  const since = Math.floor(nowMs / 1000) - 86400;
  const hidden = await hiddenMints(deps);
  const sol = solConfigs(deps);
  const ofHidden = (sql: string) => (hidden.length ? `SELECT ${sql} AS x FROM trades WHERE mint IN {hidden:Array(String)}` : null);
  const [rows, c, live, solUsd] = await Promise.all([
    deps.board.rows(),
    // one read (platformParts): trades of all time and fees from the hourly rollup, the last 24 h (whole minutes) from the minute one
    platformParts<Counts>(
      deps.ch,
      {
        not_sol: `SELECT groupArray(mint) AS x FROM ${NOT_SOL_MINTS(deps)}`,
        day: "SELECT toString(sum(trades)) AS x FROM platform_minute WHERE minute >= toDateTime({since:UInt32}, 'UTC')",
        all: "SELECT toString(sum(trades)) AS x FROM fees_1h",
        fees: "SELECT toString(sum(trading_fee + protocol_fee + referral_fee)) AS x FROM fees_1h WHERE config IN {sol:Array(String)}",
        hidden_day: ofHidden("toString(countIf(toStartOfMinute(at) >= toDateTime({since:UInt32}, 'UTC')))"),
        hidden_all: ofHidden("toString(count())"),
        hidden_fees: ofHidden("toString(sumIf(toUInt128(trading_fee) + protocol_fee + referral_fee, config IN {sol:Array(String)} AND fee_in_base = 0))"),
        holders: HOLDERS_TOTAL(hidden),
      },
      { since, hidden, sol },
    ),
    agentsLive(deps),
    solUsdNow(deps),
  ]);
  const out = new Set([...hidden, ...c.not_sol]);
  const shown = rows.filter((r) => !r.hidden && !hidden.includes(r.mint));
  const lamportRows = shown.filter((r) => !out.has(r.mint));
  const sum = (f: (r: (typeof rows)[number]) => bigint) => lamportRows.reduce((s, r) => s + f(r), 0n);
  const volume24h = sum((r) => r.volume24h);
  const volumeAll = sum((r) => r.volumeAll);
  const cap = sum((r) => r.marketCap);
  return {
    coins: shown.length,
    graduated: shown.filter((r) => r.dammPool).length,
    agentsLive: live,
    trades24h: Number(c.day || 0) - Number(c.hidden_day ?? 0),
    tradesAll: Number(c.all || 0) - Number(c.hidden_all ?? 0),
    volume24hSol: formatUnits(volume24h, 9),
    volumeAllSol: formatUnits(volumeAll, 9),
    feesAllSol: formatUnits(BigInt(c.fees || 0) - BigInt(c.hidden_fees || 0), 9),
    holders: Number(c.holders || 0),
    marketCapSol: formatUnits(cap, 9),
    marketCapUsd: lamportsToUsd(cap, solUsd),
    solUsd,
    at: new Date(nowMs).toISOString(),
  };
}
