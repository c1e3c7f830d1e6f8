/**
 * Pure step: accepted platform facts → ClickHouse rows, one typed array per table
 * (the columns of sql/clickhouse/).
 */
import type { Fact, PoolCreated, Trade, Venue } from "../ingest/contract/facts";
import type { TxEnvelope } from "../ingest/contract/envelope";
import type { PlatformConfig } from "../ingest/contract/configs";
import { priceFromSqrt } from "../ingest/contract/market-math";

/** The key columns of a fact row: (signature, ix, inner) is the fact's key. */
export type FactRowKey = { signature: string; ix: number; inner: number; slot: number; at: number };

export type TradeRow = FactRowKey & {
  mint: string; venue: Venue; pool: string; config: string; quote_mint: string; side: "buy" | "sell"; trader: string;
  amount_quote: bigint; amount_base: bigint; sqrt_price: bigint; quote_reserve: bigint; migration_threshold: bigint;
  trading_fee: bigint; protocol_fee: bigint; referral_fee: bigint; base_decimals: number; price_sol: number;
  /** 1: the three fees are in the coin's atoms (a buy charged on its output); 0: in quote atoms */
  fee_in_base: 0 | 1;
};
export type PoolEventRow = FactRowKey & {
  mint: string; kind: "pool_created" | "curve_complete" | "migration"; pool: string; config: string; quote_mint: string;
  creator: string; damm_pool: string; name: string; symbol: string; uri: string; base_reserve: bigint | 0; quote_reserve: bigint | 0; sqrt_price: bigint | 0;
};
export type FeeClaimRow = FactRowKey & {
  mint: string; kind: "trading_fee" | "surplus"; venue: Venue; role: string; pool: string; claimer: string; base_amount: bigint; quote_amount: bigint;
};
export type BurnRow = FactRowKey & { mint: string; account: string; authority: string; amount: bigint; program: string };
/** Derived per transaction (treasury.ts), keyed by the fact it was read from. */
export type TreasuryFlowRow = FactRowKey & { kind: "transfer" | "buyback"; treasury: string; recipient: string; lamports: bigint; atoms: bigint };
/**
 * A token account's balance: kind 'tx' = one transaction's change (amount = the delta), kind
 * 'snapshot' = the balance the RPC reported at `slot` (pipelines/holders/reconcile.ts).
 */
export type TokenBalanceRow = FactRowKey & { mint: string; account: string; owner: string; kind: "tx" | "snapshot"; amount: bigint; decimals: number };
/** Keyed by `id`; it has no fact key columns. */
export type ActivityRow = { mint: string; at: number; id: string; kind: string; text: string; body: string | null; data: string; links: string };
/** The `transactions` ledger: one row per transaction the sink stored. */
export type TransactionRow = {
  signature: string; slot: number; block_time: number; received_at: number; source: TxEnvelope["source"]; status: TxEnvelope["status"];
  fact_count: number; unknown_count: number; error_count: number; detail: string; payload: string;
};

export type Rows = {
  trades: TradeRow[];
  pool_events: PoolEventRow[];
  fee_claims: FeeClaimRow[];
  burns: BurnRow[];
  token_balances: TokenBalanceRow[];
  activity: ActivityRow[];
  treasury_flows: TreasuryFlowRow[];
};
export type FactRow = Rows[FactTable][number];

export const FACT_TABLES = ["trades", "pool_events", "fee_claims", "burns", "token_balances", "activity", "treasury_flows"] as const;
export type FactTable = (typeof FACT_TABLES)[number];

export const keyCols = (f: Fact): FactRowKey => ({ signature: f.signature, ix: f.ix, inner: f.inner, slot: f.slot, at: f.blockTime });

export function emptyRows(): Rows {
  return { trades: [], pool_events: [], fee_claims: [], burns: [], token_balances: [], activity: [], treasury_flows: [] };
}

export function launchActivity(f: PoolCreated): ActivityRow {
  return {
    mint: f.mint,
    at: f.blockTime * 1000,
    id: `launch:${f.mint}`,
    kind: "launch",
    text: `${f.name || "A coin"} ($${f.symbol.toUpperCase()}) launched on the bonding curve.`,
    body: null,
    data: JSON.stringify({ pool: f.pool, config: f.config, creator: f.creator, uri: f.uri }),
    links: JSON.stringify({ signature: f.signature, uri: f.uri || undefined }),
  };
}

/** `configOf` gives the platform config of a fact's coin (by config address or mint). */
export function toRows(facts: readonly Fact[], configOf: (f: Fact) => PlatformConfig | undefined): Rows {
  const rows = emptyRows();
  for (const f of facts) {
    switch (f.kind) {
      case "trade": {
        const cfg = configOf(f);
        const baseDecimals = cfg?.tokenDecimals ?? 6;
        rows.trades.push({
          ...keyCols(f),
          mint: f.mint,
          venue: f.venue,
          pool: f.pool,
          // a DAMM v2 swap names no config: the coin's (ClickHouse 0017), so per-config figures count graduated coins
          config: f.config || (cfg?.address ?? ""),
          quote_mint: f.quoteMint,
          side: f.side,
          trader: f.trader,
          amount_quote: f.amountQuote,
          amount_base: f.amountBase,
          sqrt_price: f.sqrtPrice,
          quote_reserve: f.quoteReserve,
          migration_threshold: f.migrationThreshold,
          trading_fee: f.tradingFee,
          protocol_fee: f.protocolFee,
          referral_fee: f.referralFee,
          base_decimals: baseDecimals,
          price_sol: priceFromSqrt(f.sqrtPrice, baseDecimals, cfg?.quote.decimals ?? 9),
          fee_in_base: feeInBase(f),
        });
        break;
      }
      case "pool_created":
        rows.pool_events.push({
          ...keyCols(f), mint: f.mint, kind: f.kind, pool: f.pool, config: f.config, quote_mint: f.quoteMint,
          creator: f.creator, damm_pool: "", name: f.name, symbol: f.symbol, uri: f.uri, base_reserve: 0, quote_reserve: 0, sqrt_price: 0,
        });
        rows.activity.push(launchActivity(f));
        break;
      case "curve_complete":
        rows.pool_events.push({
          ...keyCols(f), mint: f.mint, kind: f.kind, pool: f.pool, config: f.config, quote_mint: "", creator: "", damm_pool: "",
          name: "", symbol: "", uri: "", base_reserve: f.baseReserve, quote_reserve: f.quoteReserve, sqrt_price: 0,
        });
        break;
      case "migration":
        rows.pool_events.push({
          ...keyCols(f), mint: f.mint, kind: f.kind, pool: f.pool, config: f.config, quote_mint: f.quoteMint, creator: "",
          damm_pool: f.dammPool, name: "", symbol: "", uri: "", base_reserve: 0, quote_reserve: 0, sqrt_price: f.sqrtPrice,
        });
        break;
      case "fee_claim":
        rows.fee_claims.push({
          ...keyCols(f), mint: f.mint, kind: "trading_fee", venue: f.venue, role: f.role, pool: f.pool, claimer: f.claimer,
          base_amount: f.baseAmount, quote_amount: f.quoteAmount,
        });
        break;
      case "surplus_withdrawal":
        rows.fee_claims.push({
          ...keyCols(f), mint: f.mint, kind: "surplus", venue: "dbc", role: f.role, pool: f.pool, claimer: "",
          base_amount: 0n, quote_amount: f.amount,
        });
        break;
      case "burn":
        rows.burns.push({ ...keyCols(f), mint: f.mint, account: f.account, authority: f.authority, amount: f.amount, program: f.program });
        break;
      case "token_balance":
        rows.token_balances.push({ ...keyCols(f), mint: f.mint, account: f.account, owner: f.owner, kind: "tx", amount: f.delta, decimals: f.decimals });
        break;
    }
  }
  return rows;
}

/**
 * The fee currency column. A trade decoded before facts carried `feesIn` (parked in Postgres, or in
 * flight across the upgrade) gets ClickHouse 0014's rule for stored rows, on the trade alone: a buy
 * whose fees exceed its quote amount cannot have paid them from its input.
 */
export function feeInBase(f: Trade): 0 | 1 {
  const known: Trade["feesIn"] | undefined = f.feesIn;
  if (known !== undefined) return known === "base" ? 1 : 0;
  return f.side === "buy" && f.tradingFee + f.protocolFee + f.referralFee > f.amountQuote ? 1 : 0;
}

export function transactionRow(e: TxEnvelope): TransactionRow {
  return {
    signature: e.signature,
    slot: e.slot,
    block_time: e.blockTime,
    received_at: e.receivedAt,
    source: e.source,
    status: e.status,
    fact_count: e.facts.length,
    unknown_count: e.unknownCount,
    error_count: e.errorCount,
    detail: e.detail,
    payload: e.payload,
  };
}
