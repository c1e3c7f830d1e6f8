/**
 * Test helper: a simulator (Helius enhanced) transaction in the shape RPC
 * `getTransaction(sig, { encoding: "json", maxSupportedTransactionVersion: 0 })`
 * returns, so backfill and reconciliation can be tested on realistic raw data.
 * Only the instruction tree has to be exact (that is what gets decoded); balances
 * and logs are present but empty, as consumers never read them.
 */
import type { EnhancedTransaction } from ".";

export type RawInstruction = { programIdIndex: number; accounts: number[]; data: string; stackHeight: number | null };

export type RawTransaction = {
  slot: number;
  blockTime: number | null;
  version: "legacy";
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
      recentBlockhash: string;
      instructions: RawInstruction[];
    };
  };
  meta: {
    err: null;
    status: { Ok: null };
    fee: number;
    preBalances: number[];
    postBalances: number[];
    innerInstructions: { index: number; instructions: RawInstruction[] }[];
    logMessages: string[];
    preTokenBalances: RawTokenBalance[];
    postTokenBalances: RawTokenBalance[];
    rewards: unknown[];
    loadedAddresses: { writable: string[]; readonly: string[] };
    computeUnitsConsumed: number;
  };
};

export type RawTokenBalance = {
  accountIndex: number;
  mint: string;
  owner: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
};

/** SOL and token balances carried across a sequence of conversions (account to lamports / atoms). */
export type RunningBalances = { lamports: Map<string, bigint>; atoms: Map<string, bigint> };

export const runningBalances = (): RunningBalances => ({ lamports: new Map(), atoms: new Map() });

/** What an account holds before it first appears: 1,000 SOL (enough for any fee or trade). */
export const STARTING_LAMPORTS = 1_000_000_000_000n;

function tokenBalance(accountIndex: number, mint: string, owner: string, amount: bigint, decimals: number): RawTokenBalance {
  // the chain never reports one; it means the sequence lacks an earlier transaction of this account
  if (amount < 0n) throw new Error(`token account at index ${accountIndex} (mint ${mint}) would hold ${amount}: convert the whole sequence, not a part of it`);
  const ui = Number(amount) / 10 ** decimals;
  return { accountIndex, mint, owner, uiTokenAmount: { amount: amount.toString(), decimals, uiAmount: amount === 0n ? null : ui, uiAmountString: ui.toString() } };
}

/** One transaction, its pre balances made up (STARTING_LAMPORTS; a token account holds what it gives away). */
export const enhancedToRaw = (tx: EnhancedTransaction): RawTransaction => toRaw(tx, runningBalances());

/** A sequence of transactions, each one's pre balances being the post balances of those before it (in `running`). */
export const enhancedSequenceToRaw = (txs: EnhancedTransaction[], running: RunningBalances = runningBalances()): RawTransaction[] => txs.map((tx) => toRaw(tx, running));

function toRaw(tx: EnhancedTransaction, running: RunningBalances): RawTransaction {
  // Account keys in order of appearance, the fee payer first (it is keys[0] on chain: the first signer).
  const keys: string[] = [];
  const index = new Map<string, number>();
  const at = (address: string) => {
    let i = index.get(address);
    if (i === undefined) {
      i = keys.length;
      keys.push(address);
      index.set(address, i);
    }
    return i;
  };
  at(tx.feePayer);
  const compile = (ix: { programId: string; accounts: string[]; data: string }, stackHeight: number | null): RawInstruction => ({
    programIdIndex: at(ix.programId),
    accounts: ix.accounts.map(at),
    data: ix.data,
    stackHeight,
  });
  const instructions: RawInstruction[] = [];
  const innerInstructions: RawTransaction["meta"]["innerInstructions"] = [];
  tx.instructions.forEach((outer, i) => {
    instructions.push(compile(outer, null));
    // RPC lists only outer instructions that have inner ones
    if (outer.innerInstructions.length) innerInstructions.push({ index: i, instructions: outer.innerInstructions.map((inner) => compile(inner, 2)) });
  });
  // accounts that moved but no instruction names (none in the simulator) still get keys
  for (const a of tx.accountData) at(a.account);
  const native = new Map(tx.accountData.map((a) => [a.account, BigInt(a.nativeBalanceChange)]));
  const preBalances = keys.map((k) => running.lamports.get(k) ?? STARTING_LAMPORTS);
  const postBalances = keys.map((k, i) => preBalances[i]! + (native.get(k) ?? 0n));
  keys.forEach((k, i) => running.lamports.set(k, postBalances[i]!));
  const preTokenBalances: RawTokenBalance[] = [];
  const postTokenBalances: RawTokenBalance[] = [];
  for (const a of tx.accountData)
    for (const c of a.tokenBalanceChanges) {
      const delta = BigInt(c.rawTokenAmount.tokenAmount);
      const known = running.atoms.get(c.tokenAccount);
      const before = known ?? (delta < 0n ? -delta : 0n);
      const after = before + delta;
      running.atoms.set(c.tokenAccount, after);
      const index = at(c.tokenAccount);
      // an account first seen receiving is taken as created by this transaction: no pre entry
      if (known !== undefined || delta < 0n) preTokenBalances.push(tokenBalance(index, c.mint, c.userAccount, before, c.rawTokenAmount.decimals));
      postTokenBalances.push(tokenBalance(index, c.mint, c.userAccount, after, c.rawTokenAmount.decimals));
    }
  preTokenBalances.sort((a, b) => a.accountIndex - b.accountIndex);
  postTokenBalances.sort((a, b) => a.accountIndex - b.accountIndex);
  return {
    slot: tx.slot,
    blockTime: tx.timestamp,
    version: "legacy",
    transaction: {
      signatures: [tx.signature],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 0 },
        recentBlockhash: "11111111111111111111111111111111",
        instructions,
      },
    },
    meta: {
      err: null,
      status: { Ok: null },
      fee: tx.fee,
      preBalances: preBalances.map(Number),
      postBalances: postBalances.map(Number),
      innerInstructions,
      logMessages: [],
      preTokenBalances,
      postTokenBalances,
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: 0,
    },
  };
}
