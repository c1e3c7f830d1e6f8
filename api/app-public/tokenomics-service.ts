/**
 * GET /v1/tokenomics: where the platform's share of fees goes (TOKENOMICS_SPLIT: the
 * agents' vaults, creators, and buybacks and burns of the platform token), read from the
 * treasury's read models (ClickHouse migration 0013: treasury_sums, payout_reclassified,
 * treasury_payouts), burn_totals and the directory, in one read.
 *
 * - feesClaimedLamports: the platform's claims into the treasury, all time (as the
 *   analytics revenue: partner claims and treasury DAMM v2 position claims, SOL pools).
 * - sentToVaultsLamports / paidToCreatorsLamports: treasury transfers to an agent's
 *   vault / creator (classified through the directory's wallets; a vault wins when a wallet is both).
 * - buybackSpentLamports: SOL the treasury spent buying the platform token.
 * - buybackBudgetLamports: platformBurn% of fees claimed, less what buybacks spent (never negative).
 * - platformTokenBurnedAtoms: burns of PLATFORM_TOKEN_MINT; burnedShareBps = burned ×
 *   10,000 / (current supply + burned), floored; null while the supply is unknown.
 * - platformTokenSupply: a platform coin's supply (its config's, less burns), else the
 *   chain's (`getTokenSupply`, kept 60 s); null without RPC or when the read fails.
 */
import type { PublicDeps } from "../public/agents-service";
import { MOVED, NEWEST, TREASURY_SUMS, newestPayouts, paidByRole, payoutWindowPart, type MovedRow, type PayoutTuple, type SumRow } from "../public/treasury-sql";
import { PLATFORM_CLAIM, stockConfigs, treasuryOf, treasurySet } from "./platform-reads";
import { platformParts } from "../public/parts";

export const RECENT_TOKENOMICS = 20;

type Totals = {
  burned: string; coin_supply: string | null; sums: SumRow[]; moved: MovedRow[];
  /** [at, lamports, atoms, signature], newest first */
  buybacks: [number, string, string, string][];
  /** the first window of the newest creator payouts (newestPayouts) */
  payouts: PayoutTuple[];
};

export async function tokenomics(deps: PublicDeps, nowMs = Date.now()) {
  const t = treasuryOf(deps);
  const mint = t.platformTokenMint;
  const window = payoutWindowPart(RECENT_TOKENOMICS, "payout_scan");
  const p = { treasury: treasurySet(deps), stock: stockConfigs(deps), mint: mint ?? "", recent: RECENT_TOKENOMICS, ...window.params };
  // one read (platformParts): the platform's claims (of coins not stock-paired), payouts and buybacks from the treasury's sums, the
  // platform token's burns and supply by key, the newest buybacks (the treasury's flows are keyed by time), the payouts classified
  // otherwise since, the newest payouts
  const r = await platformParts<Totals>(
    deps.ch,
    {
      sums: TREASURY_SUMS(`(kind = 'claim' AND config NOT IN {stock:Array(String)} AND ${PLATFORM_CLAIM}) OR kind IN ('paid', 'flow')`),
      burned: "SELECT toString(sum(burned)) AS x FROM burn_totals WHERE mint = {mint:String}",
      coin_supply: "SELECT if(count() = 0, NULL, toString(argMax(supply_atoms, version))) AS x FROM agent_directory WHERE mint = {mint:String}",
      buybacks: `SELECT groupArray((toUnixTimestamp(at), lamports, atoms, signature)) AS x FROM (
         SELECT at, lamports, atoms, signature FROM treasury_flows WHERE kind = 'buyback' ORDER BY ${NEWEST} LIMIT {recent:UInt32})`,
      moved: MOVED,
      payouts: window.sql,
    },
    p,
  );
  // the newest creator payouts: the first window read above (another read only when it holds too few)
  const paid = await newestPayouts(deps.ch, { limit: RECENT_TOKENOMICS, creatorsOnly: true, hidden: [], first: r.payouts });
  const paidTo = paidByRole(r.sums, r.moved);
  const sumOf = (kind: string, role?: string) => r.sums.filter((x) => x[0] === kind && (role === undefined || x[2] === role)).reduce((t, x) => t + BigInt(x[4]), 0n);
  const claimed = sumOf("claim");
  const spent = sumOf("flow", "buyback");
  const burned = mint ? BigInt(r.burned || 0) : 0n;
  const budget = (claimed * BigInt(t.split.platformBurn)) / 100n - spent;
  const supply = !mint ? null : r.coin_supply !== null ? max0(BigInt(r.coin_supply) - burned) : t.tokenSupply ? await t.tokenSupply(mint) : null;
  const iso = (s: number) => new Date(Number(s) * 1000).toISOString();
  return {
    split: { vault: t.split.vault, creator: t.split.creator, platformBurn: t.split.platformBurn },
    totals: {
      feesClaimedLamports: claimed.toString(),
      sentToVaultsLamports: paidTo.vault.lamports.toString(),
      paidToCreatorsLamports: paidTo.creator.lamports.toString(),
      buybackSpentLamports: spent.toString(),
      buybackBudgetLamports: max0(budget).toString(),
      platformTokenBurnedAtoms: burned.toString(),
      burnedShareBps: !mint ? 0 : supply === null ? null : supply + burned === 0n ? 0 : Number((burned * 10_000n) / (supply + burned)),
    },
    recentBuybacks: r.buybacks.map(([at, lamports, atoms, signature]) => ({ at: iso(at), lamports, atoms, signature })),
    recentCreatorPayouts: paid.map((x) => ({ at: iso(x.at), mint: x.mint, creator: x.recipient, lamports: x.lamports, signature: x.signature })),
    platformTokenMint: mint,
    platformTokenSupply: supply === null ? null : supply.toString(),
    at: new Date(nowMs).toISOString(),
  };
}

const max0 = (x: bigint) => (x < 0n ? 0n : x);
