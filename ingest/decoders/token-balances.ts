/**
 * Token balance changes as facts: each entry of ChainTransaction.tokenBalances (post - pre
 * of one token account, only accounts that moved) becomes a `token_balance` fact keyed
 * (signature, ix = its position in the list, inner = -2). Not an instruction: the key's
 * inner -2 never meets an instruction's (-1 or an inner index), so the gate's
 * (signature, ix, inner) stays unique. The pipelines keep those of platform coins
 * (holder counting) and the treasury's; `keep` (a fact scope) leaves out the others here, each
 * kept change still keyed by its position in the whole list.
 */
import type { TokenBalanceChange } from "../contract/facts";
import type { ChainTransaction, TokenBalanceDelta } from "../transaction";
import { txFactKey } from "./site";

export const TOKEN_BALANCE_INNER = -2;

export function tokenBalanceFacts(tx: ChainTransaction, keep?: (b: TokenBalanceDelta) => boolean): TokenBalanceChange[] {
  const facts: TokenBalanceChange[] = [];
  tx.tokenBalances.forEach((b, ix) => {
    if (keep && !keep(b)) return;
    facts.push({
      kind: "token_balance",
      ...txFactKey(tx, ix, TOKEN_BALANCE_INNER),
      mint: b.mint,
      account: b.account,
      owner: b.owner,
      delta: b.delta,
      decimals: b.decimals,
    });
  });
  return facts;
}
