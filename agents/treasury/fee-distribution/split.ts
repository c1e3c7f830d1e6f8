/**
 * The split of what one fee-distribution run claimed (pure, exact integer math on lamports).
 *
 * Each agent's claim `c` (the SOL its pools' platform fees gave in this run, all its pools
 * together) gives its vault floor(c × vault% / 100) and its creator floor(c × creator% / 100);
 * the platform-token budget gets the rest: platformBurn% of every claim plus each agent's
 * rounding remainders (under 1 lamport per share and agent, so under 2 per agent). So vaults
 * are paid in proportion to what their pools earned, and vaults + creators + platform = total
 * claimed, to the lamport.
 *
 * What a recipient is owed is paid once it reaches `MIN_PAYOUT_LAMPORTS`: a System transfer
 * that leaves an empty account under the rent-exempt minimum of a 0-byte account (890,880
 * lamports) fails, and a vault may be an empty account. Smaller amounts wait, owed, for the
 * next runs (`owedPayouts`).
 */
import { MIN_PAYOUT_LAMPORTS } from "../../../api/treasury/limits";

export { MIN_PAYOUT_LAMPORTS };
export type Split = { vault: number; creator: number; platformBurn: number };
export type AgentClaim = { mint: string; vault: string; creator: string; lamports: bigint };
export type Allocation = { kind: "vault" | "creator"; mint: string; recipient: string; lamports: bigint };
export type RunSplit = { total: bigint; allocations: Allocation[]; platform: bigint };

export function splitClaims(claims: readonly AgentClaim[], split: Split): RunSplit {
  if (split.vault + split.creator + split.platformBurn !== 100 || [split.vault, split.creator, split.platformBurn].some((p) => !Number.isInteger(p) || p < 0))
    throw new Error("the split must be whole percentages summing to 100");
  const seen = new Set<string>();
  let total = 0n;
  let paid = 0n;
  const allocations: Allocation[] = [];
  for (const c of claims) {
    if (c.lamports < 0n) throw new Error(`the claim of ${c.mint} is negative`);
    if (seen.has(c.mint)) throw new Error(`${c.mint} is claimed twice: add its pools' claims up first`);
    seen.add(c.mint);
    total += c.lamports;
    const vault = (c.lamports * BigInt(split.vault)) / 100n;
    const creator = (c.lamports * BigInt(split.creator)) / 100n;
    paid += vault + creator;
    if (vault > 0n) allocations.push({ kind: "vault", mint: c.mint, recipient: c.vault, lamports: vault });
    if (creator > 0n) allocations.push({ kind: "creator", mint: c.mint, recipient: c.creator, lamports: creator });
  }
  return { total, allocations, platform: total - paid };
}

/** Adds up the claims of each agent's pools (a coin's DBC and DAMM v2 pools both pay its vault). */
export function byAgent(claims: readonly AgentClaim[]): AgentClaim[] {
  const out = new Map<string, AgentClaim>();
  for (const c of claims) {
    const a = out.get(c.mint);
    if (a) a.lamports += c.lamports;
    else out.set(c.mint, { ...c });
  }
  return [...out.values()];
}

/** What each recipient is owed (allocated less paid or being paid), kept only where it reaches `min`. */
export function owedPayouts(owed: readonly Allocation[], min = MIN_PAYOUT_LAMPORTS): Allocation[] {
  return owed.filter((o) => o.lamports >= min);
}
