// No fixture completes a curve: the transaction is built with the same Anchor coders.
import { expect, test } from "bun:test";
import type { CurveComplete, Trade } from "../contract/facts";
import { decodeTransaction } from "./index";
import { DBC } from "./program-coder";
import { addr, anchorInstruction, bn, eventCpi, key, syntheticTx } from "./testing";

const POOL = addr(2);
const CONFIG = addr(3);
const BASE_MINT = addr(4);
const QUOTE_MINT = addr(5);
const PAYER = addr(6);
const KEY = { signature: "synthetic-signature", slot: 1000, blockTime: 1700000000 };

test("the buy that fills the curve: a trade, then EvtCurveComplete with the swap's base mint", () => {
  const swap = anchorInstruction(
    DBC,
    "swap2",
    { params: { amount_0: bn(5_000_000_000n), amount_1: bn(1n), swap_mode: 0 } },
    { pool: POOL, config: CONFIG, base_mint: BASE_MINT, quote_mint: QUOTE_MINT, payer: PAYER },
  );
  const swapResult = {
    included_fee_input_amount: bn(5_000_000_000n),
    excluded_fee_input_amount: bn(4_900_000_000n),
    amount_left: bn(0),
    output_amount: bn(7_000_000n),
    next_sqrt_price: bn(412_481_737_123_559_485n),
    trading_fee: bn(80_000_000n),
    protocol_fee: bn(20_000_000n),
    referral_fee: bn(0),
  };
  const swap2 = eventCpi(DBC, "EvtSwap2", {
    pool: key(POOL),
    config: key(CONFIG),
    trade_direction: 1,
    has_referral: false,
    swap_parameters: { amount_0: bn(5_000_000_000n), amount_1: bn(1n), swap_mode: 0 },
    swap_result: swapResult,
    quote_reserve_amount: bn(100_000_000_000n),
    migration_threshold: bn(100_000_000_000n),
    current_timestamp: bn(1700000000),
  });
  const complete = eventCpi(DBC, "EvtCurveComplete", {
    pool: key(POOL),
    config: key(CONFIG),
    base_reserve: bn(200_000_002_081_499n),
    quote_reserve: bn(100_000_000_000n),
  });
  const d = decodeTransaction(syntheticTx([{ ...swap, inner: [swap2, complete] }]));
  const trade: Trade = {
    ...KEY,
    ix: 0,
    inner: 0,
    kind: "trade",
    venue: "dbc",
    pool: POOL,
    config: CONFIG,
    mint: BASE_MINT,
    quoteMint: QUOTE_MINT,
    side: "buy",
    trader: PAYER,
    amountQuote: 5_000_000_000n,
    amountBase: 7_000_000n,
    sqrtPrice: 412_481_737_123_559_485n,
    quoteReserve: 100_000_000_000n,
    migrationThreshold: 100_000_000_000n,
    tradingFee: 80_000_000n,
    protocolFee: 20_000_000n,
    referralFee: 0n,
    feesIn: "quote",
  };
  const curveComplete: CurveComplete = {
    ...KEY,
    ix: 0,
    inner: 1,
    kind: "curve_complete",
    pool: POOL,
    config: CONFIG,
    mint: BASE_MINT,
    baseReserve: 200_000_002_081_499n,
    quoteReserve: 100_000_000_000n,
  };
  expect(d.facts).toEqual([trade, curveComplete]);
  expect(d.errors).toEqual([]);
});
