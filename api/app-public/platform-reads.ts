/**
 * What the platform-wide reads share (platform stats, analytics overview, tokenomics,
 * payout feed items): which coins count, the treasury set, agents live, holders, and the
 * SQL that tells a treasury transfer to an agent's vault from one to its creator.
 */
import type { PublicDeps, TreasuryDeps } from "../public/agents-service";
import { hiddenMints } from "../public/feed-service";
export { CLASSIFIED_TRANSFERS } from "../public/treasury-sql";

export const NO_TREASURY: TreasuryDeps = { address: null, platformTokenMint: null, split: { vault: 70, creator: 15, platformBurn: 15 }, tokenSupply: null };
export const treasuryOf = (deps: PublicDeps): TreasuryDeps => deps.treasury ?? NO_TREASURY;

/** The treasury: TREASURY_ADDRESS and the feeClaimer of every platform config. */
export function treasurySet(deps: PublicDeps): string[] {
  const t = treasuryOf(deps).address;
  return [...new Set([...(t ? [t] : []), ...deps.configs.all.map((c) => c.feeClaimer)])].sort();
}

/** Configs quoted in SOL: only their amounts are lamports (a stock-paired coin's are stock atoms). */
export const solConfigs = (deps: PublicDeps) => deps.configs.all.filter((c) => c.quote.kind === "sol").map((c) => c.address);

/**
 * Coins left out of the platform's figures: hidden agents (moderation, a handful) and,
 * from lamport sums, coins whose config is not a SOL-quoted platform config (a
 * stock-paired coin's amounts are stock atoms).
 */
export async function excludedMints(deps: PublicDeps): Promise<{ hidden: string[]; stock: string[] }> {
  const [hidden, stock] = await Promise.all([
    hiddenMints(deps),
    deps.ch
      .query<{ mint: string }>(`SELECT DISTINCT mint FROM agent_directory ${solConfigs(deps).length ? "WHERE config NOT IN {sol:Array(String)}" : ""}`, { sol: solConfigs(deps) })
      .then((r) => r.map((x) => x.mint)),
  ]);
  return { hidden, stock };
}

/**
 * Agents live: public agents of a launched coin (status active) that are awake, i.e.
 * running their decision cycle. `asleep` (budget under the spec's $20), `frozen`
 * (stopped) and `forming` (coin not seen on-chain yet) are not live.
 */
export async function agentsLive(deps: PublicDeps): Promise<number> {
  const [r] = await deps.sql<{ n: bigint }[]>`SELECT count(*) AS n FROM agents WHERE NOT hidden AND status = 'active' AND state = 'awake'`;
  return Number(r!.n);
}

/** `mint NOT IN` a list, or nothing when the list is empty (an empty IN list is not valid SQL). */
export const notIn = (param: string, list: readonly string[], column = "mint") => (list.length ? `AND ${column} NOT IN {${param}:Array(String)}` : "");

/**
 * Holders across public coins: each coin's newest count (holder_counts), summed. A
 * wallet holding two coins counts twice: it is the sum of each coin's holders, not the
 * number of distinct wallets.
 */
export async function holdersTotal(deps: PublicDeps, hidden: string[]): Promise<number> {
  const [r] = await deps.ch.query<{ n: string }>(
    `SELECT toString(sum(h)) AS n FROM (SELECT mint, argMax(holders, counted_at) AS h FROM holder_counts WHERE 1 ${notIn("hidden", hidden)} GROUP BY mint)`,
    { hidden },
  );
  return Number(r?.n ?? 0);
}

/** The platform's claims into the treasury: partner-role claims and DAMM v2 position claims by a treasury address. */
export const PLATFORM_CLAIM = "(role = 'partner' OR (role = 'position' AND claimer IN {treasury:Array(String)}))";

/**
 * The SOL price of a row's minute (`sol_price_1m`, the last recorded at or before it),
 * or the first price ever recorded for rows older than the history; null with no history.
 * Wraps `rows` (which must have `minute` and `k` = 0) as an ASOF join. With `since` (the
 * name of a UInt32 parameter no row is older than), only the prices from the last one at
 * or before it are joined, not the whole history.
 */
export const withSolPrice = (rows: string, since?: string) => `
  (${rows}) AS c
  ASOF LEFT JOIN (SELECT 0 AS k, minute, usd FROM sol_price_1m FINAL
    ${since ? `WHERE minute >= (SELECT max(minute) FROM sol_price_1m WHERE minute <= toDateTime({${since}:UInt32}, 'UTC'))` : ""}) AS p
  ON c.k = p.k AND c.minute >= p.minute`;
export const PRICE_OR_FIRST = "ifNull(p.usd, (SELECT usd FROM sol_price_1m FINAL ORDER BY minute LIMIT 1))";
