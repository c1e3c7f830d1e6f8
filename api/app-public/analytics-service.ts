/**
 * GET /v1/analytics/overview?range=24h|7d|30d|all. Every figure is read from rollups and
 * read models kept at write time (ClickHouse migrations 0011 and 0013), never a scan of
 * the trades (hidden coins' own trades excepted: a handful of coins, read by their key and
 * taken off the totals; likewise stock-paired coins' claims). Fee sums are lamports: only the
 * fees of trades charged in the quote token (`fee_in_base` = 0, ClickHouse migration 0014).
 * Curve and DAMM v2 trades count in the totals (a DAMM v2 trade carries its coin's config,
 * 0017); feeSplit and topEarners split the curve's trading fees (`curve_trading_fee`,
 * `coin_fees`, `coin_fees_span`), the fees the config divides between creator and platform.
 *
 * Windows are whole hours: `24h` is the hour in progress and the 23 before it (7d: 168
 * hours, 30d: 720), `all` has no start. Claims and payouts in the window are those at or
 * after its first hour. topEarners counts whole UTC days: the days the window touches,
 * the closed ones summed once per day and process from aligned spans of days (top-earners.ts).
 * USD of claims and payouts: the SOL price of their minute when they were stored (0013).
 */
import { lamportsToUsd } from "../../ingest/contract/market-math";
import { solUsdNow, type PublicDeps } from "../public/agents-service";
import { MOVED, NEWEST, TREASURY_SUMS, newestPayouts, paidByRole, payoutWindowPart, type MovedRow, type PayoutTuple, type SumRow } from "../public/treasury-sql";
import { hiddenMints } from "../public/feed-service";
import { newestActionPayouts } from "./action-payouts";
import { topEarnersPlan } from "./top-earners";
import { FIRST_PRICE, HOLDERS_TOTAL, PLATFORM_CLAIM, agentsLive, isPlatformClaim, notIn, solConfigs, stockConfigs, treasurySet, usdOf } from "./platform-reads";
import { platformParts } from "../public/parts";

export const RANGE_HOURS = { "24h": 24, "7d": 168, "30d": 720, all: null } as const;
export type Range = keyof typeof RANGE_HOURS;
export const RECENT_PAYOUTS = 20;
export { daySpans, TOP_EARNERS } from "./top-earners";

/** The window's first second (unix), the start of its first hour; 0 for `all`. */
export function windowStart(range: Range, nowSeconds: number): number {
  const hours = RANGE_HOURS[range];
  return hours === null ? 0 : Math.floor(nowSeconds / 3600) * 3600 - (hours - 1) * 3600;
}

/** [config, trades, volume, trading fees, protocol fees, the curve's trading fees] */
type Sums = [string, string, string, string, string, string];
type Figures = {
  totals: Sums[]; hidden_totals?: Sums[]; holders: string | null; sums: SumRow[]; moved: MovedRow[];
  /** the first window of the newest claims (listedClaims) */
  claims: Claim[];
  /** the first window of the newest payouts (newestPayouts) */
  payouts: PayoutTuple[];
};

export async function analyticsOverview(deps: PublicDeps, range: Range, nowMs = Date.now()) {
  const nowSeconds = Math.floor(nowMs / 1000);
  const since = windowStart(range, nowSeconds);
  const hidden = await hiddenMints(deps);
  const sol = solConfigs(deps);
  const treasury = treasurySet(deps);
  const pcts = sol.map((a) => deps.configs.byAddress.get(a)!.creatorPct);
  const window = payoutWindowPart(RECENT_PAYOUTS, "payout_scan");
  // topEarners counts whole UTC days: its closed days' sums are kept between requests (top-earners.ts)
  const earners = topEarnersPlan(deps.ch, { sol, pcts }, Math.floor(since / 86400), Math.floor(nowSeconds / 86400), hidden);
  const p = { ...earners.params, since, hidden, sol, stock: stockConfigs(deps), treasury, claim_scan: CLAIM_SCAN, ...window.params };
  const sums = (from: string) =>
    `SELECT groupArray((config, trades, volume, tf, pf, ctf)) AS x FROM (
       SELECT config, sum(trades) AS trades, sum(volume) AS volume, sum(trading_fee) AS tf, sum(protocol_fee) AS pf, sum(curve_trading_fee) AS ctf
       FROM ${from} GROUP BY config)`;
  const [f, live, solUsd, actions] = await Promise.all([
    // one read of every figure (platformParts): trades and fees per config (hidden coins' own taken off below), holders, the
    // treasury's sums (creators' claims of all time and the platform's in the window, of coins not stock-paired; payouts), the
    // payouts classified otherwise since they were stored, the newest claims (keyed by time), the top earners and the newest payouts
    platformParts<Figures & Parameters<typeof earners.finish>[0]>(
      deps.ch,
      {
        totals: sums("fees_1h WHERE hour >= toDateTime({since:UInt32}, 'UTC')"),
        hidden_totals: hidden.length
          ? sums(
              `(SELECT config, 1 AS trades, amount_quote AS volume, if(fee_in_base = 1, 0, trading_fee) AS trading_fee, if(fee_in_base = 1, 0, protocol_fee) AS protocol_fee,
                  if(fee_in_base = 1 OR venue != 'dbc', 0, trading_fee) AS curve_trading_fee
                FROM trades WHERE mint IN {hidden:Array(String)} AND at >= toDateTime({since:UInt32}, 'UTC'))`,
            )
          : null,
        holders: HOLDERS_TOTAL(hidden),
        // (no stock-paired config: no condition, which costs the read ~1 ms even with an empty list)
        sums: TREASURY_SUMS(`(kind = 'claim' ${notIn("stock", p.stock, "config")} AND (role = 'creator' OR (hour >= toDateTime({since:UInt32}, 'UTC') AND ${PLATFORM_CLAIM}))) OR kind = 'paid'`),
        moved: MOVED,
        claims: CLAIM_WINDOW,
        ...earners.parts,
        payouts: window.sql,
      },
      p,
    ),
    agentsLive(deps),
    solUsdNow(deps),
    // airdrops and contest prizes paid (Postgres, newest first)
    newestActionPayouts(deps.sql, { limit: RECENT_PAYOUTS, hidden }),
  ]);
  // the newest claims and payouts: the first windows read above (another read only when one holds too few)
  const stock = new Set(p.stock);
  const listed = ([, , , , , mint, role, , claimer, config]: Claim) =>
    (role === "creator" || isPlatformClaim(role, claimer, treasury)) && !stock.has(config) && !hidden.includes(mint);
  const [claimed, payouts, top] = await Promise.all([
    listedClaims(deps, f.claims, listed),
    newestPayouts(deps.ch, { limit: RECENT_PAYOUTS, creatorsOnly: false, hidden, first: f.payouts }),
    earners.finish(f),
  ]);
  const net = new Map<string, { trades: bigint; volume: bigint; tf: bigint; pf: bigint; ctf: bigint }>();
  for (const [rows, sign] of [[f.totals, 1n], [f.hidden_totals ?? [], -1n]] as const)
    for (const [config, trades, volume, tf, pf, ctf] of rows) {
      const n = net.get(config) ?? { trades: 0n, volume: 0n, tf: 0n, pf: 0n, ctf: 0n };
      n.trades += sign * BigInt(trades);
      n.volume += sign * BigInt(volume || 0);
      n.tf += sign * BigInt(tf || 0);
      n.pf += sign * BigInt(pf || 0);
      n.ctf += sign * BigInt(ctf || 0);
      net.set(config, n);
    }
  // feeSplit: the curve's trading fees, split by each config's creatorPct (a DAMM v2 pool's go to its positions)
  let trades = 0n, volume = 0n, tradingFees = 0n, protocolFees = 0n, curveFees = 0n, creatorFees = 0n;
  for (const [config, n] of net) {
    trades += n.trades;
    const cfg = deps.configs.byAddress.get(config);
    if (cfg?.quote.kind !== "sol") continue;
    volume += n.volume;
    tradingFees += n.tf;
    protocolFees += n.pf;
    curveFees += n.ctf;
    creatorFees += (n.ctf * BigInt(cfg.creatorPct)) / 100n;
  }
  const configured = deps.configs.launch ?? deps.configs.all[0];
  const creatorBps = configured ? configured.creatorPct * 100 : 0;
  // the earners' names from the registry (Postgres, the directory's source), by key: not from the market board (its
  // reload reads every coin), and not in the engine's queue of reads
  const names = new Map(
    top.length
      ? (await deps.sql<{ mint: string; coin_name: string; symbol: string }[]>`
          SELECT mint, coin_name, symbol FROM agents WHERE mint IN ${deps.sql(top.map((e) => e.mint))}`).map((r) => [r.mint, r])
      : [],
  );
  // claims and payouts stored before any price are valued at the first price recorded (read only when there are any)
  const claims = f.sums.filter((x) => x[0] === "claim");
  const toCreators = paidByRole(f.sums, f.moved).creator;
  const unpriced = claims.some((x) => BigInt(x[6]) > 0n) || toCreators.unpriced > 0n;
  const firstPrice = unpriced ? ((await deps.ch.query<{ usd: number | null }>(`SELECT (${FIRST_PRICE}) AS usd`))[0]?.usd ?? null) : null;
  const series = platformDays(claims.filter((x) => x[2] !== "creator"), firstPrice);
  const revenueUsd = series.some((d) => d.usd === null) ? null : series.reduce((s, d) => s + d.usd!, 0);
  // creator rewards, all time: creators' own claims and the treasury's payouts to creators
  const claimedByCreators = sumOf(claims.filter((x) => x[2] === "creator"));
  const rewardLamports = claimedByCreators.lamports + toCreators.lamports;
  const rewardUsd = usdOf(claimedByCreators.usd + toCreators.usd, claimedByCreators.unpriced + toCreators.unpriced, firstPrice);
  // recent payouts: the newest claims, payouts and paid treasury actions, merged (each read newest first from its own table)
  const recent = [
    ...claimed.map(([at, slot, signature, ix, inner, mint, role, lamports]) => ({
      at, slot, signature, ix, inner, mint, lamports, kind: role === "creator" ? "creator_fee_claim" : "fee_claim",
    })),
    ...payouts.map((x) => ({ ...x, kind: `${x.payout}_payout` })),
    ...actions,
  ]
    .sort(newestFirst)
    .slice(0, RECENT_PAYOUTS);
  return {
    range,
    totals: {
      agentsLive: live,
      trades: Number(trades),
      volumeLamports: volume.toString(),
      volumeUsd: lamportsToUsd(volume, solUsd),
      tradingFeesLamports: tradingFees.toString(),
      protocolFeesLamports: protocolFees.toString(),
      holders: Number(f.holders || 0),
    },
    revenue: { lamports: series.reduce((s, d) => s + BigInt(d.lamports), 0n).toString(), usd: revenueUsd, series },
    feeSplit: {
      creatorLamports: creatorFees.toString(),
      platformLamports: (curveFees - creatorFees).toString(),
      protocolLamports: protocolFees.toString(),
      creatorBps,
      platformBps: configured ? 10_000 - creatorBps : 0,
    },
    creatorRewards: { lamports: rewardLamports.toString(), usd: rewardLamports > 0n ? rewardUsd : 0 },
    topEarners: top.map((e) => ({ mint: e.mint, name: names.get(e.mint)?.coin_name ?? "", symbol: names.get(e.mint)?.symbol ?? "", lamports: e.lamports })),
    recentPayouts: recent.map((x) => ({
      kind: x.kind, mint: x.mint, lamports: x.lamports, at: new Date(Math.round(Number(x.at) * 1000)).toISOString(), signature: x.signature,
      ...("signatures" in x ? { signatures: x.signatures } : {}),
    })),
    at: new Date(nowMs).toISOString(),
  };
}

/** A stored claim: [at, slot, signature, ix, inner, mint, role, lamports, claimer, config] */
type Claim = [number, string, string, number, number, string, string, string, string, string];
const CLAIM_SCAN = 64;
/**
 * The newest `scan` claims of `fee_claim_feed` (keyed by time: read from its end), unfiltered: the claims listed
 * (creators' and the platform's, PLATFORM_CLAIM; not stock-paired, not hidden) are picked from them here, which costs the engine less than
 * the same conditions in the read (each expression of a read costs; measured 1.8 against 4.8 ms).
 */
const CLAIM_WINDOW = `SELECT groupArray((toUnixTimestamp(at), slot, signature, ix, inner, mint, role, lamports, claimer, config)) AS x FROM (
  SELECT at, slot, signature, ix, inner, mint, role, lamports, claimer, config FROM fee_claim_feed ORDER BY ${NEWEST} LIMIT {claim_scan:UInt32})`;

/** The newest RECENT_PAYOUTS claims `listed` keeps, newest first: from `first` (CLAIM_WINDOW), widened eightfold while it holds too few. */
async function listedClaims(deps: PublicDeps, first: Claim[], listed: (c: Claim) => boolean): Promise<Claim[]> {
  for (let scan = CLAIM_SCAN, rows = first; ; ) {
    const kept = rows.filter(listed);
    if (kept.length >= RECENT_PAYOUTS || rows.length < scan) return kept.slice(0, RECENT_PAYOUTS);
    scan *= 8;
    rows = (await platformParts<{ claims: Claim[] }>(deps.ch, { claims: CLAIM_WINDOW }, { claim_scan: scan })).claims;
  }
}

/** The platform's claims per UTC day in the window (days with claims only, oldest first). */
function platformDays(rows: SumRow[], firstPrice: number | null) {
  const days = new Map<string, SumRow[]>();
  for (const r of rows) days.set(r[1], [...(days.get(r[1]) ?? []), r]);
  return [...days]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([day, of]) => {
      const d = sumOf(of);
      return { day, lamports: d.lamports.toString(), usd: usdOf(d.usd, d.unpriced, firstPrice) };
    });
}

/** Lamports, USD (lamport-dollars) and unpriced lamports of treasury sums' rows. */
function sumOf(rows: SumRow[]) {
  const out = { lamports: 0n, usd: 0, unpriced: 0n };
  for (const [, , , , l, u, un] of rows) {
    out.lamports += BigInt(l);
    out.usd += u;
    out.unpriced += BigInt(un);
  }
  return out;
}

type Keyed = { at: number; slot: string; signature: string; ix: number; inner: number };
/** Newest first by the fact key (at, slot, signature, ix, inner), as NEWEST orders a read. */
function newestFirst(a: Keyed, b: Keyed): number {
  const bySlot = BigInt(b.slot) - BigInt(a.slot);
  return Number(b.at) - Number(a.at) || (bySlot > 0n ? 1 : bySlot < 0n ? -1 : 0) || Buffer.compare(Buffer.from(b.signature), Buffer.from(a.signature)) || b.ix - a.ix || b.inner - a.inner;
}
