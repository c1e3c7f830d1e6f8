/**
 * What the loopback RPC test double (rpc-double.ts) answers to getTransaction for a
 * transaction it landed: the getTransaction result (json encoding) of the sent bytes, with a
 * `meta` the test describes, since the double runs no programs. A test says what the
 * programs would have done (`LandedEffects`: token balances before and after, SOL balance
 * changes, inner instructions such as an event CPI, logs); everything else is read from the
 * transaction itself (keys, header, instructions, blockhash; the fee is 5,000 lamports per
 * signature, taken from the fee payer).
 */
import bs58 from "bs58";
import type { VersionedTransaction } from "@solana/web3.js";

export type LandedTokenBalance = { account: string; mint: string; owner: string; decimals: number; pre: bigint | null; post: bigint | null; programId?: string };
export type LandedInstruction = { programId: string; accounts: string[]; data: Uint8Array };

export type LandedEffects = {
  /** token accounts' balances before and after (null: the account did not exist then) */
  tokenBalances?: LandedTokenBalance[];
  /** SOL balance changes (post - pre) of accounts, besides the fee the payer pays */
  lamportDeltas?: { account: string; delta: bigint }[];
  /** inner instructions (CPIs, event CPIs) per outer instruction index */
  innerInstructions?: { index: number; instructions: LandedInstruction[] }[];
  logMessages?: string[];
};

/** Decides the effects of each landed transaction (null: none beyond the fee). */
export type LandedEffectsOf = (tx: VersionedTransaction) => LandedEffects | null;

export const FEE_PER_SIGNATURE = 5000n;
/** Every account starts here in `preBalances` (the double keeps no SOL ledger). */
const START_LAMPORTS = 10_000_000_000n;

/** The getTransaction (json) result of `tx` landed at `slot`, `err` null for a success. */
export function landedTransactionJson(tx: VersionedTransaction, effects: LandedEffects | null, slot: number, blockTime: number, err: unknown): Record<string, unknown> {
  const m = tx.message;
  // a failed transaction changes nothing but the fee
  if (err !== null) effects = null;
  if (m.addressTableLookups.length) throw new Error("the RPC test double lands transactions without address lookup tables only");
  const keys = m.staticAccountKeys.map((k) => k.toBase58());
  const indexOf = (address: string) => {
    const i = keys.indexOf(address);
    if (i < 0) throw new Error(`the landed effects name ${address}, which the transaction does not`);
    return i;
  };
  const fee = FEE_PER_SIGNATURE * BigInt(m.header.numRequiredSignatures);
  const deltas = new Map<number, bigint>([[0, -fee]]);
  for (const d of effects?.lamportDeltas ?? []) deltas.set(indexOf(d.account), (deltas.get(indexOf(d.account)) ?? 0n) + d.delta);
  const pre = keys.map(() => START_LAMPORTS);
  const post = pre.map((p, i) => p + (deltas.get(i) ?? 0n));
  const tokenBalance = (b: LandedTokenBalance, amount: bigint) => ({
    accountIndex: indexOf(b.account),
    mint: b.mint,
    owner: b.owner,
    programId: b.programId ?? "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
    uiTokenAmount: { amount: amount.toString(), decimals: b.decimals, uiAmount: null, uiAmountString: "" },
  });
  const balances = effects?.tokenBalances ?? [];
  const compile = (i: LandedInstruction) => ({ programIdIndex: indexOf(i.programId), accounts: i.accounts.map(indexOf), data: bs58.encode(i.data), stackHeight: 2 });
  return {
    slot,
    blockTime,
    version: tx.version,
    transaction: {
      signatures: tx.signatures.map((s) => bs58.encode(s)),
      message: {
        accountKeys: keys,
        header: m.header,
        recentBlockhash: m.recentBlockhash,
        instructions: m.compiledInstructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accountKeyIndexes, data: bs58.encode(ix.data), stackHeight: null })),
      },
    },
    meta: {
      err,
      status: err === null ? { Ok: null } : { Err: err },
      fee: Number(fee),
      preBalances: pre.map(Number),
      postBalances: post.map(Number),
      preTokenBalances: balances.filter((b) => b.pre !== null).map((b) => tokenBalance(b, b.pre!)),
      postTokenBalances: balances.filter((b) => b.post !== null).map((b) => tokenBalance(b, b.post!)),
      innerInstructions: err === null ? (effects?.innerInstructions ?? []).map((g) => ({ index: g.index, instructions: g.instructions.map(compile) })) : [],
      logMessages: effects?.logMessages ?? [],
      loadedAddresses: { writable: [], readonly: [] },
      rewards: [],
      computeUnitsConsumed: 0,
    },
  };
}
