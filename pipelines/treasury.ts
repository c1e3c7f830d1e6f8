/**
 * Pure step: the platform treasury's flows, read per transaction from its facts (the
 * treasury = TREASURY_ADDRESS and every config's fee claimer, the pool view's `treasury`).
 *
 * - A buyback: a treasury address's balance of the platform token rose while its SOL
 *   fell. SOL spent = -(its sol_balance, when it paid the fee, + its wrapped-SOL token
 *   balance changes): a swap that wraps SOL, spends the wSOL and unwraps the rest
 *   nets out to what the swap took. One row per treasury address, keyed by the first
 *   fact it was read from.
 * - Otherwise, each System transfer out of a treasury address is a transfer to its
 *   recipient (readers tell vault and creator payouts apart through agent_directory),
 *   except to the treasury's own token accounts in the transaction (wrapping SOL).
 * Every other fact is ignored here: this only reads, it accepts and drops nothing.
 */
import type { Fact, SolBalanceChange, TokenBalanceChange } from "../ingest/contract/facts";
import { WSOL_MINT } from "../ingest/contract/configs";
import { keyCols, type TreasuryFlowRow } from "./rows";

export type TreasuryView = { treasury: ReadonlySet<string>; platformTokenMint: string | null };

export function treasuryFlows(facts: readonly Fact[], view: TreasuryView): TreasuryFlowRow[] {
  if (view.treasury.size === 0) return [];
  const buybacks = view.platformTokenMint ? buybackRows(facts, view.treasury, view.platformTokenMint) : [];
  if (buybacks.length) return buybacks;
  const ownAccounts = new Set<string>();
  for (const f of facts) if (f.kind === "token_balance" && view.treasury.has(f.owner)) ownAccounts.add(f.account);
  const rows: TreasuryFlowRow[] = [];
  for (const f of facts)
    if (f.kind === "sol_transfer" && view.treasury.has(f.from) && !ownAccounts.has(f.to) && f.lamports > 0n)
      rows.push({ ...keyCols(f), kind: "transfer", treasury: f.from, recipient: f.to, lamports: f.lamports, atoms: 0n });
  return rows;
}

function buybackRows(facts: readonly Fact[], treasury: ReadonlySet<string>, platformToken: string): TreasuryFlowRow[] {
  // per treasury address, in the order the transaction's facts first name it
  const byTreasury = new Map<string, { first: Fact; atoms: bigint; lamports: bigint }>();
  const add = (f: TokenBalanceChange | SolBalanceChange, address: string, atoms: bigint, lamports: bigint) => {
    const t = byTreasury.get(address);
    if (t) {
      t.atoms += atoms;
      t.lamports += lamports;
    } else byTreasury.set(address, { first: f, atoms, lamports });
  };
  for (const f of facts) {
    if (f.kind === "sol_balance" && treasury.has(f.account)) add(f, f.account, 0n, -f.delta);
    else if (f.kind === "token_balance" && treasury.has(f.owner)) {
      if (f.mint === platformToken) add(f, f.owner, f.delta, 0n);
      else if (f.mint === WSOL_MINT) add(f, f.owner, 0n, -f.delta);
    }
  }
  const rows: TreasuryFlowRow[] = [];
  for (const [address, t] of byTreasury)
    if (t.atoms > 0n && t.lamports > 0n)
      rows.push({ ...keyCols(t.first), kind: "buyback", treasury: address, recipient: "", lamports: t.lamports, atoms: t.atoms });
  return rows;
}

