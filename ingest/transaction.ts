/**
 * A chain transaction in one shape, whatever the source (Helius enhanced, Helius raw,
 * RPC getTransaction). Decoders only ever see this shape.
 */
export type Instruction = {
  programId: string;
  /** account addresses, in the instruction's own order */
  accounts: string[];
  /** instruction data, decoded from base58 */
  data: Uint8Array;
};

export type OuterInstruction = Instruction & {
  /** inner (CPI) instructions of this outer instruction, in execution order */
  inner: Instruction[];
};

export type ChainTransaction = {
  signature: string;
  slot: number;
  /** unix seconds; 0 when the source did not say */
  blockTime: number;
  /** first signer, who pays the fee */
  feePayer: string;
  /** true when the transaction failed on-chain (meta.err / transactionError) */
  failed: boolean;
  instructions: OuterInstruction[];
};
