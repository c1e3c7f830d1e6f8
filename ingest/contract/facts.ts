/**
 * Facts decoded from the chain. Every fact carries a deterministic key
 * (signature, outer instruction index, inner instruction index; inner is -1 for an
 * outer instruction) so that storage can make at-least-once delivery exactly-once.
 * Amounts are bigint: lamports and token atoms.
 */
export type FactKey = {
  signature: string;
  /** index of the outer instruction */
  ix: number;
  /** index inside the outer instruction's inner list of the event-CPI (or the instruction itself); -1 = outer */
  inner: number;
  slot: number;
  /** unix seconds */
  blockTime: number;
};

export type Venue = "dbc" | "damm_v2";

/** A DBC pool created (EvtInitializePool + initialize_virtual_pool_* instruction args). */
export type PoolCreated = FactKey & {
  kind: "pool_created";
  pool: string;
  config: string;
  creator: string;
  mint: string;
  quoteMint: string;
  /** 0 = SPL Token, 1 = Token-2022 */
  poolType: number;
  name: string;
  symbol: string;
  uri: string;
  payer: string;
};

/** One swap. `amountQuote` is quote atoms (lamports for SOL) in (buy) or out (sell). */
export type Trade = FactKey & {
  kind: "trade";
  venue: Venue;
  pool: string;
  /** DBC config; empty for DAMM v2 */
  config: string;
  mint: string;
  quoteMint: string;
  side: "buy" | "sell";
  trader: string;
  amountQuote: bigint;
  amountBase: bigint;
  /** post-trade sqrt price, Q64.64 of quote atoms per base atom */
  sqrtPrice: bigint;
  /** DBC: quote reserve after the swap; DAMM v2: reserve of token B */
  quoteReserve: bigint;
  /** DBC: quote the curve must hold to graduate; 0 for DAMM v2 */
  migrationThreshold: bigint;
  tradingFee: bigint;
  protocolFee: bigint;
  referralFee: bigint;
  /**
   * The token the three fees are in: "quote" (lamports for a SOL-quoted coin) or "base" (the
   * coin's atoms). A sell always pays in quote (its output). A buy pays on its input (quote)
   * when the pool collects fees in the quote token, and on its output (base) when it collects
   * them in the output token (DBC collect_fee_mode 1, DAMM v2 collect_fee_mode 0). A trade
   * without fees says "quote". See feesIn() in ingest/decoders/fee-currency.ts.
   */
  feesIn: "quote" | "base";
};

/** The curve reached its migration threshold (EvtCurveComplete). */
export type CurveComplete = FactKey & {
  kind: "curve_complete";
  pool: string;
  config: string;
  mint: string;
  baseReserve: bigint;
  quoteReserve: bigint;
};

/** migration_damm_v2: the DBC pool graduated into a DAMM v2 pool. */
export type Migration = FactKey & {
  kind: "migration";
  pool: string;
  config: string;
  mint: string;
  quoteMint: string;
  dammPool: string;
  /** post-migration sqrt price of the DAMM v2 pool when its EvtInitializePool is in the transaction, else 0 */
  sqrtPrice: bigint;
};

/** Trading fees claimed: DBC partner / creator, or a DAMM v2 position owner. */
export type FeeClaim = FactKey & {
  kind: "fee_claim";
  venue: Venue;
  role: "partner" | "creator" | "position";
  pool: string;
  mint: string;
  claimer: string;
  baseAmount: bigint;
  quoteAmount: bigint;
};

/** Surplus quote withdrawn from a completed curve. */
export type SurplusWithdrawal = FactKey & {
  kind: "surplus_withdrawal";
  role: "partner" | "creator";
  pool: string;
  mint: string;
  amount: bigint;
};

/** SPL Token / Token-2022 Burn or BurnChecked. */
export type Burn = FactKey & {
  kind: "burn";
  mint: string;
  account: string;
  authority: string;
  amount: bigint;
  program: "spl-token" | "token-2022";
};

/**
 * A token account's balance moved in a transaction: `post - pre` of the transaction's
 * token balances (RPC / Helius raw `meta.preTokenBalances` / `postTokenBalances`, Helius
 * enhanced `accountData[].tokenBalanceChanges`). Not an instruction: keyed by
 * (signature, ix = the entry's position in ChainTransaction.tokenBalances, inner = -2).
 */
export type TokenBalanceChange = FactKey & {
  kind: "token_balance";
  mint: string;
  /** the token account */
  account: string;
  /** the wallet that owns the token account */
  owner: string;
  /** atoms, signed */
  delta: bigint;
  decimals: number;
};

/** SOL moved by a System Program `transfer` (outer or inner instruction). */
export type SolTransfer = FactKey & {
  kind: "sol_transfer";
  from: string;
  to: string;
  lamports: bigint;
};

/**
 * The fee payer's SOL balance change in a transaction, the network fee excluded (so a
 * swap's "SOL spent" is exact whoever signs). Keyed (signature, ix = 0, inner = -3).
 */
export type SolBalanceChange = FactKey & {
  kind: "sol_balance";
  account: string;
  /** lamports, signed, fee excluded */
  delta: bigint;
};

export type Fact =
  | PoolCreated
  | Trade
  | CurveComplete
  | Migration
  | FeeClaim
  | SurplusWithdrawal
  | Burn
  | TokenBalanceChange
  | SolTransfer
  | SolBalanceChange;

/** What decoding one transaction yields. */
export type DecodedTransaction = {
  tx: { signature: string; slot: number; blockTime: number; feePayer: string; failed: boolean };
  facts: Fact[];
  /** event-CPI or instructions of a known program whose discriminator no IDL knows */
  unknown: { program: string; discriminator: string; ix: number; inner: number }[];
  /** decoding errors (malformed data of a known discriminator) */
  errors: { ix: number; inner: number; message: string }[];
};
