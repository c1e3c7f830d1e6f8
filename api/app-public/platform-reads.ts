/**
 * What the platform-wide reads share (platform stats, analytics overview, tokenomics):
 * which coins count, the treasury set, agents live, holders, the platform's claims and the
 * USD of stored claims and payouts (priced when stored: ClickHouse migration 0013).
 */
import type { PublicDeps, TreasuryDeps } from "../public/agents-service";

export const NO_TREASURY: TreasuryDeps = { address: null, platformTokenMint: null, split: { vault: 70, creator: 15, platformBurn: 15 }, tokenSupply: null };
export const treasuryOf = (deps: PublicDeps): TreasuryDeps => deps.treasury ?? NO_TREASURY;

/** The treasury: TREASURY_ADDRESS and the feeClaimer of every platform config. */
export function treasurySet(deps: PublicDeps): string[] {
  const t = treasuryOf(deps).address;
  return [...new Set([...(t ? [t] : []), ...deps.configs.all.map((c) => c.feeClaimer)])].sort();
}

/** Configs quoted in SOL: only their amounts are lamports (a stock-paired coin's are stock atoms). */
export const solConfigs = (deps: PublicDeps) => deps.configs.all.filter((c) => c.quote.kind === "sol").map((c) => c.address);

/** Configs paired with a tokenized stock: their coins' amounts are stock atoms, not lamports. */
export const stockConfigs = (deps: PublicDeps) => deps.configs.all.filter((c) => c.quote.kind === "stock").map((c) => c.address);

/**
 * Coins left out of the platform's figures: hidden agents (moderation, a handful, from
 * Postgres) and, from lamport sums, stock-paired coins, whose amounts are stock atoms. Claims
 * carry their coin's config (ClickHouse migration 0013), so the treasury's reads leave out
 * those of stock-paired configs (a coin the directory does not know, or of a config the
 * registry does not know, counts as SOL-quoted). The market board's sums (volumes, market cap)
 * count the coins of SOL-quoted platform configs: NOT_SOL_MINTS names the others in a
 * subquery of the read that needs them.
 */
export const NOT_SOL_MINTS = (deps: PublicDeps) =>
  `(SELECT DISTINCT mint FROM agent_directory ${solConfigs(deps).length ? "WHERE config NOT IN {sol:Array(String)}" : ""})`;

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
 * Holders across public coins: each coin's newest count (holder_counts keeps the newest per
 * coin: FINAL reads one row per coin), summed, as SQL returning one figure. A wallet holding
 * two coins counts twice: it is the sum of each coin's holders, not the number of distinct wallets.
 */
export const HOLDERS_TOTAL = (hidden: readonly string[]) => `SELECT toString(sum(holders)) AS x FROM holder_counts FINAL WHERE 1 ${notIn("hidden", hidden)}`;


/** The platform's claims into the treasury: partner-role claims and DAMM v2 position claims by a treasury address. */
export const PLATFORM_CLAIM = "(role = 'partner' OR (role = 'position' AND claimer IN {treasury:Array(String)}))";
/** PLATFORM_CLAIM for a claim read whole. */
export const isPlatformClaim = (role: string, claimer: string, treasury: readonly string[]) => role === "partner" || (role === "position" && treasury.includes(claimer));

/**
 * The first SOL price ever recorded, the price of rows stored before any price at or before
 * their minute existed (`priced` = 0: older than the history); NULL before any price.
 */
export const FIRST_PRICE = `SELECT anyOrNull(usd) FROM (SELECT usd FROM sol_price_1m FINAL WHERE minute = (SELECT minute FROM sol_price_1m ORDER BY minute LIMIT 1))`;

/**
 * USD of a sum of stored rows: `usd` (lamport-dollars of the priced rows) plus the unpriced
 * lamports at the first recorded price, in USD; null when some are unpriced and no price was
 * ever recorded.
 */
export function usdOf(usd: number, unpriced: bigint, firstPrice: number | null): number | null {
  if (unpriced === 0n) return usd / 1e9;
  return firstPrice === null ? null : (usd + Number(unpriced) * firstPrice) / 1e9;
}
