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
  /** the network fee in lamports (0 when the source did not say) */
  fee: number;
  /**
   * Token accounts whose balance moved (post - pre), ordered by token account address (the
   * same order from every source: a change's position is its fact key): raw/RPC from
   * meta.pre/postTokenBalances, enhanced from accountData[].tokenBalanceChanges. Accounts
   * whose balance did not move are left out.
   */
  tokenBalances: TokenBalanceDelta[];
  /** SOL balance changes (post - pre, fee included) of accounts whose balance moved */
  nativeBalances: { account: string; delta: bigint }[];
};

export type TokenBalanceDelta = { account: string; mint: string; owner: string; delta: bigint; decimals: number };
