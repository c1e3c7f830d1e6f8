/**
 * The balance changes of one simulated transaction, as Helius puts them in `accountData`:
 * per account its SOL change (`nativeBalanceChange`, the fee included for the fee payer)
 * and, for a token account, the signed change of its token amount. Every builder records
 * the transfers its instructions make here, so the summary is exact by construction; the
 * market's ledger (ledger.ts) takes the same deltas.
 */
import type { AccountData } from "./helius";
import type { Ledger } from "./ledger";

type TokenSide = { mint: string; owner: string; decimals: number; delta: bigint };
type Entry = { native: bigint; token: TokenSide | null };

export class TxBalances {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly feePayer: string,
    readonly fee: number,
  ) {
    this.native(feePayer, -BigInt(fee));
  }

  private entry(account: string): Entry {
    let e = this.entries.get(account);
    if (e === undefined) {
      e = { native: 0n, token: null };
      this.entries.set(account, e);
    }
    return e;
  }

  /** SOL moved into (positive) or out of `account`. */
  native(account: string, delta: bigint): this {
    this.entry(account).native += delta;
    return this;
  }

  /** `from` pays `lamports` to `to` (a System transfer, rent, an unwrap). */
  move(from: string, to: string, lamports: bigint): this {
    return this.native(from, -lamports).native(to, lamports);
  }

  /** A token account's amount moved; wrapped SOL moves the account's lamports too (its lamports are its balance plus rent). */
  token(account: string, mint: string, owner: string, decimals: number, delta: bigint, wrappedSol = false): this {
    const e = this.entry(account);
    if (e.token === null) e.token = { mint, owner, decimals, delta: 0n };
    e.token.delta += delta;
    if (wrappedSol) e.native += delta;
    return this;
  }

  /** `payer` funds a new account of `space` bytes with its rent-exempt minimum. */
  rent(payer: string, account: string, lamports: number): this {
    return this.move(payer, account, BigInt(lamports));
  }

  /** Helius `accountData`: accounts in first-touched order (the fee payer first), only those that moved. */
  accountData(ledger: Ledger | null): AccountData[] {
    const out: AccountData[] = [];
    for (const [account, e] of this.entries) {
      const t = e.token;
      const moved = t !== null && t.delta !== 0n;
      if (e.native === 0n && !moved && account !== this.feePayer) continue;
      if (moved) ledger?.token(account, t.mint, t.owner, t.delta);
      out.push({
        account,
        nativeBalanceChange: Number(e.native),
        tokenBalanceChanges: moved
          ? [{ mint: t.mint, rawTokenAmount: { tokenAmount: t.delta.toString(), decimals: t.decimals }, tokenAccount: account, userAccount: t.owner }]
          : [],
      });
    }
    return out;
  }
}
