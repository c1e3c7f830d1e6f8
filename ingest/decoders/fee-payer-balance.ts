/**
 * The fee payer's SOL change in a transaction with the network fee left out, so what a
 * signer spent or received (a swap, a payout) reads the same whoever pays the fee.
 * Not an instruction: keyed (signature, ix 0, inner -3) as contract/facts.ts says.
 */
import type { SolBalanceChange } from "../contract/facts";
import type { ChainTransaction } from "../transaction";
import { txFactKey } from "./site";

/** Null when nothing moved but the fee, or when the source reported no SOL balances at all. */
export function feePayerBalance(tx: ChainTransaction): SolBalanceChange | null {
  if (tx.nativeBalances.length === 0) return null;
  // an account missing from the list did not move: the fee payer then got exactly the fee back
  const moved = tx.nativeBalances.find((b) => b.account === tx.feePayer)?.delta ?? 0n;
  const delta = moved + BigInt(tx.fee);
  if (delta === 0n) return null;
  return { kind: "sol_balance", ...txFactKey(tx, 0, -3), account: tx.feePayer, delta };
}
