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
    preTokenBalances: unknown[];
    postTokenBalances: unknown[];
    rewards: unknown[];
    loadedAddresses: { writable: string[]; readonly: string[] };
    computeUnitsConsumed: number;
  };
};

export function enhancedToRaw(tx: EnhancedTransaction): RawTransaction {
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
  const zeros = keys.map(() => 0);
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
      preBalances: zeros,
      postBalances: zeros,
      innerInstructions,
      logMessages: [],
      preTokenBalances: [],
      postTokenBalances: [],
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: 0,
    },
  };
}
