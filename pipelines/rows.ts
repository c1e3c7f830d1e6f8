/**
 * Pure step: accepted platform facts → ClickHouse rows, one array per table.
 */
import type { Fact, PoolCreated } from "../ingest/contract/facts";
import type { PlatformConfig } from "../ingest/contract/configs";
import { priceFromSqrt } from "../ingest/contract/market-math";

export type Rows = {
  trades: Record<string, unknown>[];
  pool_events: Record<string, unknown>[];
  fee_claims: Record<string, unknown>[];
  burns: Record<string, unknown>[];
  activity: Record<string, unknown>[];
};

export const FACT_TABLES = ["trades", "pool_events", "fee_claims", "burns", "activity"] as const;
export type FactTable = (typeof FACT_TABLES)[number];

const keyCols = (f: Fact) => ({ signature: f.signature, ix: f.ix, inner: f.inner, slot: f.slot, at: f.blockTime });

export function emptyRows(): Rows {
  return { trades: [], pool_events: [], fee_claims: [], burns: [], activity: [] };
}

export function launchActivity(f: PoolCreated): Record<string, unknown> {
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
          config: f.config,
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
    }
  }
  return rows;
}
