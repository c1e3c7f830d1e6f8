/**
 * Test support: Helius enhanced payloads of the platform treasury's actions, with exact
 * accountData (SOL and token balance changes), built with the simulator's
 * `enhancedTransaction` and encoders. Each builder returns the payload and what it moved,
 * so a test's ledger is computed independently of the pipeline.
 */
import { randomBytes } from "node:crypto";
import { encodeBase58 } from "../../ingest/decoders/base58";
import { enhancedTransaction, type AccountData, type EnhancedTransaction } from "../../ingest/simulator/helius";
import { NATIVE_MINT, TOKEN_PROGRAM_ID, systemTransfer, tokenBurn, type SimInstruction, type SimOuterInstruction } from "../../ingest/simulator/encode";

export type AccountChange = { account: string; lamports?: bigint; token?: { mint: string; owner: string; atoms: bigint; decimals: number } };

/** A fresh address (32 random bytes). */
export const newAddress = (): string => encodeBase58(randomBytes(32));

let slot = 390_000_000;
/** A header with a fresh signature, the next slot and a block time `at` (unix seconds). */
export function header(feePayer: string, at: number, fee = 5_000) {
  return { signature: encodeBase58(randomBytes(64)), slot: ++slot, timestamp: at, feePayer, fee };
}

/** accountData from the changes: the fee payer's entry carries the fee as Helius reports it (fee included). */
export function accountData(feePayer: string, fee: number, changes: AccountChange[]): EnhancedTransaction["accountData"] {
  const byAccount = new Map<string, AccountData>();
  const entry = (account: string) => {
    let e = byAccount.get(account);
    if (!e) byAccount.set(account, (e = { account, nativeBalanceChange: 0, tokenBalanceChanges: [] }));
    return e;
  };
  entry(feePayer).nativeBalanceChange -= fee;
  for (const c of changes) {
    const e = entry(c.account);
    if (c.lamports) e.nativeBalanceChange += Number(c.lamports);
    if (c.token)
      e.tokenBalanceChanges.push({
        mint: c.token.mint,
        rawTokenAmount: { tokenAmount: c.token.atoms.toString(), decimals: c.token.decimals },
        tokenAccount: c.account,
        userAccount: c.token.owner,
      });
  }
  return [...byAccount.values()];
}

function withBalances(h: ReturnType<typeof header>, instructions: SimOuterInstruction[], changes: AccountChange[]): EnhancedTransaction {
  return enhancedTransaction(h, instructions, accountData(h.feePayer, h.fee, changes));
}

const outer = (ix: SimInstruction, inner: SimInstruction[] = []): SimOuterInstruction => ({ ...ix, innerInstructions: inner });

/** The treasury sends SOL to `recipient` (an agent's vault, a creator). */
export function payout(treasury: string, recipient: string, lamports: bigint, at: number): EnhancedTransaction {
  const h = header(treasury, at);
  return withBalances(h, [outer(systemTransfer(treasury, recipient, lamports))], [
    { account: treasury, lamports: -lamports },
    { account: recipient, lamports },
  ]);
}

export type BuybackAccounts = { treasuryWsol: string; treasuryToken: string; poolWsol: string; poolToken: string; poolAuthority: string; router: string };

/**
 * A buyback through a router (a program the platform does not decode): the treasury wraps
 * `wrap` lamports into its existing wSOL account (System transfer + SyncNative), the swap
 * takes `spent` of them for `atoms` of the platform token; the rest stays wrapped.
 */
export function buyback(treasury: string, platformToken: string, a: BuybackAccounts, wrap: bigint, spent: bigint, atoms: bigint, at: number): EnhancedTransaction {
  const h = header(treasury, at);
  const syncNative: SimInstruction = { programId: TOKEN_PROGRAM_ID, accounts: [a.treasuryWsol], data: encodeBase58(Uint8Array.of(17)) };
  const swap: SimInstruction = { programId: a.router, accounts: [treasury, a.treasuryWsol, a.treasuryToken, a.poolWsol, a.poolToken, a.poolAuthority], data: encodeBase58(Uint8Array.of(9, 1, 2, 3)) };
  return withBalances(h, [outer(systemTransfer(treasury, a.treasuryWsol, wrap)), outer(syncNative), outer(swap)], [
    { account: treasury, lamports: -wrap },
    { account: a.treasuryWsol, lamports: wrap - spent, token: { mint: NATIVE_MINT, owner: treasury, atoms: wrap - spent, decimals: 9 } },
    { account: a.treasuryToken, token: { mint: platformToken, owner: treasury, atoms, decimals: 6 } },
    { account: a.poolWsol, lamports: spent, token: { mint: NATIVE_MINT, owner: a.poolAuthority, atoms: spent, decimals: 9 } },
    { account: a.poolToken, token: { mint: platformToken, owner: a.poolAuthority, atoms: -atoms, decimals: 6 } },
  ]);
}

/** The treasury burns `atoms` of the platform token from its token account. */
export function platformBurn(treasury: string, platformToken: string, tokenAccount: string, atoms: bigint, at: number): EnhancedTransaction {
  const h = header(treasury, at);
  return withBalances(h, [outer(tokenBurn(tokenAccount, platformToken, treasury, atoms))], [
    { account: tokenAccount, token: { mint: platformToken, owner: treasury, atoms: -atoms, decimals: 6 } },
  ]);
}

/** claim_trading_fee's accounts (DBC IDL order): pool_authority, config, pool, token_a_account, token_b_account, base_vault, quote_vault, base_mint, quote_mint, fee_claimer, ... */
const CLAIM = { authority: 0, baseAccount: 3, quoteAccount: 4, baseVault: 5, quoteVault: 6, baseMint: 7, quoteMint: 8 } as const;

/** A DBC claim_trading_fee payload with its accountData made exact: the vaults pay what the claimer's token accounts receive. */
export function withClaimBalances(tx: EnhancedTransaction, claim: { claimer: string; baseAmount: bigint; quoteAmount: bigint }, decimals = { base: 6, quote: 9 }): EnhancedTransaction {
  const ix = tx.instructions.find((i) => i.accounts.length > CLAIM.quoteMint && i.accounts.includes(claim.claimer))!;
  const acc = (k: keyof typeof CLAIM) => ix.accounts[CLAIM[k]]!;
  const changes: AccountChange[] = [];
  const token = (account: string, mint: string, owner: string, atoms: bigint, d: number) => {
    if (atoms !== 0n) changes.push({ account, lamports: mint === NATIVE_MINT ? atoms : undefined, token: { mint, owner, atoms, decimals: d } });
  };
  token(acc("baseVault"), acc("baseMint"), acc("authority"), -claim.baseAmount, decimals.base);
  token(acc("quoteVault"), acc("quoteMint"), acc("authority"), -claim.quoteAmount, decimals.quote);
  token(acc("baseAccount"), acc("baseMint"), claim.claimer, claim.baseAmount, decimals.base);
  token(acc("quoteAccount"), acc("quoteMint"), claim.claimer, claim.quoteAmount, decimals.quote);
  return { ...tx, accountData: accountData(tx.feePayer, tx.fee, changes) };
}
