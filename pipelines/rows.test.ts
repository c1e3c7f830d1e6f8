import { expect, test } from "bun:test";
import type { Trade } from "../ingest/contract/facts";
import { feeInBase, toRows } from "./rows";

const buy: Trade = {
  signature: "sig", ix: 2, inner: 3, slot: 10, blockTime: 1_760_000_000, kind: "trade", venue: "dbc", pool: "pool", config: "cfg", mint: "mint",
  quoteMint: "So11111111111111111111111111111111111111112", side: "buy", trader: "trader", amountQuote: 100_000_000n, amountBase: 3_000_000_000_000n,
  sqrtPrice: 1n << 64n, quoteReserve: 0n, migrationThreshold: 0n, tradingFee: 48_000_000_000n, protocolFee: 12_000_000_000n, referralFee: 0n, feesIn: "base",
};

test("a trade row carries the fact's fee currency", () => {
  expect(toRows([buy], () => undefined).trades.map((r) => r.fee_in_base)).toEqual([1]);
  expect(toRows([{ ...buy, feesIn: "quote", tradingFee: 1_600_000n, protocolFee: 400_000n }], () => undefined).trades.map((r) => r.fee_in_base)).toEqual([0]);
});

test("a trade decoded before facts carried feesIn (parked, in flight across the upgrade): a buy whose fees exceed its lamports in paid them in the coin", () => {
  const { feesIn: _, ...old } = buy;
  expect(feeInBase(old as Trade)).toBe(1);
  expect(feeInBase({ ...old, tradingFee: 1_600_000n, protocolFee: 400_000n } as Trade)).toBe(0);
  expect(feeInBase({ ...old, side: "sell" } as Trade)).toBe(0);
  // the fact's own currency wins over the rule
  expect(feeInBase({ ...buy, feesIn: "quote" })).toBe(0);
});
