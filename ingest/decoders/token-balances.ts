/**
 * Token balance changes as facts: each entry of ChainTransaction.tokenBalances (post - pre
 * of one token account, only accounts that moved) becomes a `token_balance` fact keyed
 * (signature, ix = its position in the list, inner = -2). Not an instruction: the key's
 * inner -2 never meets an instruction's (-1 or an inner index), so the gate's
 * (signature, ix, inner) stays unique. The pipelines keep those of platform coins
 * (holder counting); every mint is emitted here because this step knows no platform.
 */
import type { TokenBalanceChange } from "../contract/facts";
import type { ChainTransaction } from "../transaction";
import { txFactKey } from "./site";

export const TOKEN_BALANCE_INNER = -2;

export function tokenBalanceFacts(tx: ChainTransaction): TokenBalanceChange[] {
  return tx.tokenBalances.map((b, ix) => ({
    kind: "token_balance",
    ...txFactKey(tx, ix, TOKEN_BALANCE_INNER),
    mint: b.mint,
    account: b.account,
    owner: b.owner,
    delta: b.delta,
    decimals: b.decimals,
  }));
}
