/**
 * The Helius enhanced-webhook element shape (see shared/fixtures/helius-devnet/*.enhanced.json).
 * Helius classifies DBC / DAMM v2 transactions as UNKNOWN with no parsed events; consumers
 * decode the instructions themselves from the instruction tree, and read balances from
 * `accountData` (balances.ts makes it exact). The transfer summaries are kept small but
 * consistent with it.
 */
import type { SimOuterInstruction } from "./encode";

export type TokenTransfer = {
  fromTokenAccount: string;
  fromUserAccount: string;
  mint: string;
  toTokenAccount: string;
  toUserAccount: string;
  tokenAmount: number;
  tokenStandard: "Fungible";
};

export type NativeTransfer = { fromUserAccount: string; toUserAccount: string; amount: number };

/** One entry of `tokenBalanceChanges`: the signed change of a token account's amount, in atoms. */
export type TokenBalanceChange = {
  mint: string;
  rawTokenAmount: { tokenAmount: string; decimals: number };
  tokenAccount: string;
  userAccount: string;
};

export type AccountData = { account: string; nativeBalanceChange: number; tokenBalanceChanges: TokenBalanceChange[] };

export type EnhancedTransaction = {
  accountData: AccountData[];
  description: string;
  events: Record<string, never>;
  fee: number;
  feePayer: string;
  instructions: SimOuterInstruction[];
  nativeTransfers: NativeTransfer[];
  signature: string;
  slot: number;
  source: string;
  timestamp: number;
  tokenTransfers: TokenTransfer[];
  transactionError: null;
  type: string;
};

export type TxExtra = { type?: string; source?: string; description?: string; tokenTransfers?: TokenTransfer[]; nativeTransfers?: NativeTransfer[] };

export type TxHeader = { signature: string; slot: number; timestamp: number; feePayer: string; fee: number };

export function enhancedTransaction(
  h: TxHeader,
  instructions: SimOuterInstruction[],
  accountData: AccountData[],
  extra: TxExtra = {},
): EnhancedTransaction {
  return {
    accountData,
    description: extra.description ?? "",
    events: {},
    fee: h.fee,
    feePayer: h.feePayer,
    instructions,
    nativeTransfers: extra.nativeTransfers ?? [],
    signature: h.signature,
    slot: h.slot,
    source: extra.source ?? "UNKNOWN",
    timestamp: h.timestamp,
    tokenTransfers: extra.tokenTransfers ?? [],
    transactionError: null,
    type: extra.type ?? "UNKNOWN",
  };
}

/** Atoms to the UI number Helius puts in tokenAmount. */
export function uiAmount(atoms: bigint, decimals: number): number {
  return Number(atoms) / 10 ** decimals;
}

export function transfer(
  mint: string,
  decimals: number,
  amount: bigint,
  from: [tokenAccount: string, user: string],
  to: [tokenAccount: string, user: string],
): TokenTransfer {
  return {
    fromTokenAccount: from[0],
    fromUserAccount: from[1],
    mint,
    toTokenAccount: to[0],
    toUserAccount: to[1],
    tokenAmount: uiAmount(amount, decimals),
    tokenStandard: "Fungible",
  };
}
