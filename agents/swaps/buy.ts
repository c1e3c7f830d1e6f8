/**
 * A buy of a platform coin with SOL on the pool it trades in now, built with the venue's own
 * SDK: `@meteora-ag/dynamic-bonding-curve-sdk` (`client.pool.swap`) while the coin is on its
 * curve, `@meteora-ag/cp-amm-sdk` (`CpAmm.swap`) once it trades on DAMM v2. The minimum out
 * is the SDKs' own quote (api/pools/service.ts `quoteAt`: `swapQuoteExactIn` /
 * `swapQuoteExactInput` with `slippageBps`) on the pool state just read; the program refuses
 * the swap when it would give less. The wallet (`owner`) signs and pays: SOL is wrapped,
 * swapped and the rest unwrapped in the same transaction, and the coin lands in its
 * associated token account (created when missing).
 *
 * And the SPL burn of a coin amount from that account (`burnChecked`), the step a buyback
 * takes with what it received.
 */
import BN from "bn.js";
import { Connection, PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, createBurnCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { DynamicBondingCurveClient } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { CpAmm } from "@meteora-ag/cp-amm-sdk";
import type { PoolSnapshot } from "../../api/pools/chain";
import { quoteAt } from "../../api/pools/service";

export type Venue = "dbc" | "damm_v2";

export type BuySwap = {
  venue: Venue;
  pool: string;
  mint: string;
  /** the coin's token program and decimals (what a burn of it needs) */
  tokenProgram: string;
  decimals: number;
  lamportsIn: bigint;
  /** the quote's amount out and the least the program accepts (the quote less slippageBps) */
  expectedOut: bigint;
  minimumOut: bigint;
  slippageBps: number;
  instructions: TransactionInstruction[];
};

const bn = (x: bigint) => new BN(x.toString());
/** The token program of a DBC config's `tokenType` or a DAMM v2 pool's token flag: 0 = SPL Token, 1 = Token-2022. */
export const tokenProgramOf = (flag: number) => (flag === 1 ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID);

/**
 * The buy on `snapshot` (api/pools/chain.ts, read just before). Throws the quote's own
 * refusals (409 CURVE_COMPLETE for a full curve waiting to migrate; 400 when the pool cannot
 * fill the amount; 409 SWAP_DISABLED) before anything is built.
 */
export async function buildBuy(
  connection: Connection,
  snapshot: PoolSnapshot,
  o: { owner: PublicKey; mint: string; lamports: bigint; slippageBps: number; decimals: { base: number; quote: number } },
): Promise<BuySwap> {
  const q = quoteAt(snapshot, o.mint, o.decimals, { side: "buy", amount: o.lamports, slippageBps: o.slippageBps });
  const head = {
    venue: snapshot.venue,
    pool: snapshot.pool,
    mint: o.mint,
    decimals: o.decimals.base,
    lamportsIn: o.lamports,
    expectedOut: BigInt(q.amountOut),
    minimumOut: BigInt(q.minimumAmountOut),
    slippageBps: o.slippageBps,
  };
  const pool = new PublicKey(snapshot.pool);
  if (snapshot.venue === "dbc") {
    const tx = await new DynamicBondingCurveClient(connection, "confirmed").pool.swap({
      owner: o.owner,
      pool,
      amountIn: bn(o.lamports),
      minimumAmountOut: bn(head.minimumOut),
      swapBaseForQuote: false,
      referralTokenAccount: null,
    });
    return { ...head, tokenProgram: tokenProgramOf(snapshot.config.tokenType).toBase58(), instructions: tx.instructions };
  }
  const s = snapshot.state;
  const coinIsA = s.tokenAMint.toBase58() === o.mint;
  const tokenAProgram = tokenProgramOf(s.tokenAFlag);
  const tokenBProgram = tokenProgramOf(s.tokenBFlag);
  const tx = await new CpAmm(connection).swap({
    payer: o.owner,
    pool,
    inputTokenMint: coinIsA ? s.tokenBMint : s.tokenAMint,
    outputTokenMint: coinIsA ? s.tokenAMint : s.tokenBMint,
    amountIn: bn(o.lamports),
    minimumAmountOut: bn(head.minimumOut),
    tokenAMint: s.tokenAMint,
    tokenBMint: s.tokenBMint,
    tokenAVault: s.tokenAVault,
    tokenBVault: s.tokenBVault,
    tokenAProgram,
    tokenBProgram,
    referralTokenAccount: null,
    poolState: s,
  });
  return { ...head, tokenProgram: (coinIsA ? tokenAProgram : tokenBProgram).toBase58(), instructions: tx.instructions };
}

/** Whether a snapshot's pool trades the coin against SOL (a stock-paired coin's does not). */
export function quotedInSol(snapshot: PoolSnapshot): boolean {
  if (snapshot.venue === "dbc") return snapshot.config.quoteMint.equals(NATIVE_MINT);
  return snapshot.state.tokenAMint.equals(NATIVE_MINT) || snapshot.state.tokenBMint.equals(NATIVE_MINT);
}

/** The owner's associated token account of `mint` (the account a buy lands in). */
export const coinAccountOf = (owner: PublicKey, mint: string, tokenProgram: string) =>
  getAssociatedTokenAddressSync(new PublicKey(mint), owner, true, new PublicKey(tokenProgram));

/** Burns `amount` atoms of `mint` from the owner's associated token account (burnChecked: the decimals must match the mint's). */
export function burnInstruction(owner: PublicKey, mint: string, amount: bigint, decimals: number, tokenProgram: string): TransactionInstruction {
  const program = new PublicKey(tokenProgram);
  return createBurnCheckedInstruction(coinAccountOf(owner, mint, tokenProgram), new PublicKey(mint), owner, amount, decimals, [], program);
}
