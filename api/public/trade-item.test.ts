import { describe, expect, test } from "bun:test";
import { fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { configRegistry, WSOL_MINT } from "../../ingest/contract/configs";
import { STOCK_MINT } from "../../compose/testing/launch";
import { stockQuote, tradeItem, type TradeRow } from "./feed-service";

const sim = simulatedConfigRegistry(fixtureSimConfigs(3));
const TSLAX = { kind: "stock" as const, mint: STOCK_MINT, symbol: "TSLAx", decimals: 8, ticker: "TSLA" };
const registry = configRegistry(sim.all.map((c) => (c.role === "stock" ? { ...c, quote: TSLAX } : c)));

const row = (quoteMint: string): TradeRow => ({
  mint: "CoinMint1111111111111111111111111111111111", signature: "sig", ix: 2, inner: 1, slot_text: "300000000", at: "2026-11-21 10:00:00",
  side: "buy", trader: "Trader11111111111111111111111111111111111", amount_quote: "250000000", amount_base: "1234560000", base_decimals: 6,
  price_sol: 0.002, quote_mint: quoteMint,
});

describe("Data API trade: the quote of a paired coin", () => {
  test("a SOL-quoted trade has quote null and SOL amounts", () => {
    expect(stockQuote(registry, WSOL_MINT)).toBeUndefined();
    const t = tradeItem(row(WSOL_MINT), 150, stockQuote(registry, WSOL_MINT));
    expect(t).toMatchObject({ amountSol: "0.25", amountUsd: 37.5, amountToken: "1234.56", quote: null });
  });

  test("a stock-paired trade carries the stock's mint, symbol, amount in atoms and in whole stock units", () => {
    const t = tradeItem(row(STOCK_MINT), 150, stockQuote(registry, STOCK_MINT));
    expect(t.quote).toEqual({ mint: STOCK_MINT, symbol: "TSLAx", amount: "250000000", uiAmount: 2.5 });
  });

  test("a quote mint no stock config names is not taken for a stock", () => {
    expect(stockQuote(registry, "Unknown111111111111111111111111111111111111")).toBeUndefined();
  });
});
