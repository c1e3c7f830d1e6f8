/**
 * What the simulated chain should add up to, for end-to-end tests: per token account its
 * balance (mint, owner, atoms), and the treasury's totals (fees claimed, SOL sent to agent
 * vaults and paid to creators, platform-token buybacks and burns) with each payout and
 * buyback by signature. Token balances are kept only when asked (`recordLedger`: they grow
 * with the holders); the treasury's totals always.
 */
export type TokenAccountBalance = { mint: string; owner: string; amount: bigint };

export type TreasuryTotals = {
  /** SOL (quote lamports) the treasury claimed: DBC partner claims and its DAMM v2 position's claims */
  claimedLamports: bigint;
  sentToVaultsLamports: bigint;
  paidToCreatorsLamports: bigint;
  buybackLamports: bigint;
  /** platform-token atoms the buybacks bought */
  buybackAtoms: bigint;
  /** platform-token atoms the treasury burned */
  burnedAtoms: bigint;
  /** network fees the treasury paid */
  feesLamports: bigint;
};

export type TreasuryPayout = { signature: string; kind: "vault" | "creator"; mint: string; recipient: string; lamports: bigint };
export type TreasuryBuyback = { signature: string; lamports: bigint; atoms: bigint };
export type TreasuryBurn = { signature: string; atoms: bigint };

export class Ledger {
  readonly accounts: Map<string, TokenAccountBalance> | null;
  readonly treasury: TreasuryTotals = {
    claimedLamports: 0n,
    sentToVaultsLamports: 0n,
    paidToCreatorsLamports: 0n,
    buybackLamports: 0n,
    buybackAtoms: 0n,
    burnedAtoms: 0n,
    feesLamports: 0n,
  };
  readonly payouts: TreasuryPayout[] = [];
  readonly buybacks: TreasuryBuyback[] = [];
  readonly burns: TreasuryBurn[] = [];

  constructor(keepBalances: boolean) {
    this.accounts = keepBalances ? new Map() : null;
  }

  token(account: string, mint: string, owner: string, delta: bigint): void {
    if (this.accounts === null) return;
    const b = this.accounts.get(account);
    if (b === undefined) this.accounts.set(account, { mint, owner, amount: delta });
    else b.amount += delta;
  }

  /** Per owner, the balance of `mint` (accounts of one owner summed), zero balances left out. */
  balancesOf(mint: string): Map<string, bigint> {
    const out = new Map<string, bigint>();
    for (const b of this.accounts?.values() ?? []) if (b.mint === mint) out.set(b.owner, (out.get(b.owner) ?? 0n) + b.amount);
    for (const [owner, amount] of out) if (amount === 0n) out.delete(owner);
    return out;
  }
}
