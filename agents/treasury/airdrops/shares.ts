/**
 * Pure: an airdrop's shares. Pro rata by balance in exact integer math, with every share at
 * least the minimum payout (MIN_PAYOUT_LAMPORTS):
 *
 * 1. Holders are ranked by balance (largest first, ties by address). With `topHolders`, only
 *    the first that many take part.
 * 2. Folding: the smallest holders whose share would fall below the minimum are left out and
 *    their part goes to the others. The holders paid are the largest group, from the top, whose
 *    smallest pro rata share floor(L x b / B) (B = the group's balances) is at least the
 *    minimum; the group does not split holders of equal balance (all of a tie are in or out),
 *    unless that would leave nobody paid: then a tie is cut in address order.
 *    Leaving a holder out only raises the others' shares, so this group is the one folding
 *    "from the bottom until every share clears the minimum" reaches.
 * 3. Within the group, share_i = floor(L x b_i / B); the lamports left by rounding (fewer than
 *    the group's size) go one each to the largest remainders (L x b_i mod B), ties by rank.
 *    The shares add up to L exactly.
 * L below the minimum pays nobody (the caller refuses it).
 */
import type { HolderEntry } from "../snapshot";
import { MIN_PAYOUT_LAMPORTS } from "../../../api/treasury/limits";

export { MIN_PAYOUT_LAMPORTS };

export type Share = { owner: string; balance: bigint; lamports: bigint };
export type Shares = {
  shares: Share[];
  /** holders who take part (all, or the top N) */
  eligible: number;
  /** of those, how many were folded (left out, their part given to the rest) and their balances */
  folded: { holders: number; atoms: bigint };
};

const ranked = (a: HolderEntry, b: HolderEntry) => (a.amount !== b.amount ? (a.amount > b.amount ? -1 : 1) : a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0);

export function airdropShares(entries: readonly HolderEntry[], lamports: bigint, o: { minimum?: bigint; topHolders?: number } = {}): Shares {
  const minimum = o.minimum ?? MIN_PAYOUT_LAMPORTS;
  const all = entries.filter((e) => e.amount > 0n).sort(ranked);
  const pool = o.topHolders === undefined ? all : all.slice(0, o.topHolders);
  // prefix sums of balances, largest first
  const prefix: bigint[] = [];
  let sum = 0n;
  for (const e of pool) prefix.push((sum += e.amount));
  const largestGroup = (keepTies: boolean) => {
    for (let n = pool.length; n >= 1; n--) {
      // with keepTies, only cut where the next holder's balance is smaller
      if (keepTies && n < pool.length && pool[n]!.amount === pool[n - 1]!.amount) continue;
      if ((lamports * pool[n - 1]!.amount) / prefix[n - 1]! >= minimum) return n;
    }
    return 0;
  };
  const k = largestGroup(true) || largestGroup(false);
  const group = pool.slice(0, k);
  const total = k ? prefix[k - 1]! : 0n;
  const shares: Share[] = group.map((e) => ({ owner: e.owner, balance: e.amount, lamports: total ? (lamports * e.amount) / total : 0n }));
  let left = lamports - shares.reduce((s, x) => s + x.lamports, 0n);
  if (k && left > 0n) {
    const byRemainder = group.map((e, i) => ({ i, r: (lamports * e.amount) % total })).sort((a, b) => (a.r !== b.r ? (a.r > b.r ? -1 : 1) : a.i - b.i));
    for (const { i } of byRemainder) {
      if (left === 0n) break;
      shares[i]!.lamports += 1n;
      left -= 1n;
    }
  }
  const foldedAtoms = pool.slice(k).reduce((s, e) => s + e.amount, 0n);
  return { shares, eligible: pool.length, folded: { holders: pool.length - k, atoms: foldedAtoms } };
}
