import { describe, expect, test } from "bun:test";
import type { Trade } from "../contract/facts";
import { discriminatorHex, isEventCpi } from "./event-cpi";
import { decodeTransaction } from "./index";
import { DBC } from "./program-coder";
import { fixtureTx, patchEventInt, programFacts } from "./testing";

const POOL = "6df83M2zCRgxqVvjpUKMo8GWmGtcb6ojbZiNwjMBnb1i";
const CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
const MINT = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const WSOL = "So11111111111111111111111111111111111111112";
const TRADER = "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf";

const BUY: Trade = {
  signature: "5gf6fduSgAssqxYpgRzcCHWcg7yKTdtynsYxU4x7B25YANEKZDFRvFtq22FaGaqReftbErAijndSfcNnSXiW2WZN",
  ix: 6,
  inner: 3,
  slot: 415184133,
  blockTime: 1760695166,
  kind: "trade",
  venue: "dbc",
  pool: POOL,
  config: CONFIG,
  mint: MINT,
  quoteMint: WSOL,
  side: "buy",
  trader: TRADER,
  // quote vault 5d7S3z... +200000000 lamports; trader's token account +322281812767019
  amountQuote: 200_000_000n,
  amountBase: 322_281_812_767_019n,
  sqrtPrice: 17_559_938_077_497_542n,
  quoteReserve: 196_000_000n,
  migrationThreshold: 1_000_000_000n,
  tradingFee: 3_200_000n,
  protocolFee: 800_000n,
  referralFee: 0n,
  feesIn: "quote",
};

const SELL: Trade = {
  signature: "5cfHQeyTUkqEWCYxauctTm9bKH5x8RCQGKkWHpbBuiqeadcEvoMkEXNTYZWoHPuvctQRoG7BEXEVMc9MPJrNhtBf",
  ix: 3,
  inner: 3,
  slot: 415184728,
  blockTime: 1760695397,
  kind: "trade",
  venue: "dbc",
  pool: POOL,
  config: CONFIG,
  mint: MINT,
  quoteMint: WSOL,
  side: "sell",
  trader: TRADER,
  // quote vault -191296014; trader's token account -322281812000000
  amountQuote: 191_296_014n,
  amountBase: 322_281_812_000_000n,
  sqrtPrice: 11_785_194_076_233_633n,
  // 196000000 - 191296014 out - 3763188 trading fee - 940797 protocol fee
  quoteReserve: 1n,
  migrationThreshold: 1_000_000_000n,
  tradingFee: 3_763_188n,
  protocolFee: 940_797n,
  referralFee: 0n,
  feesIn: "quote",
};

function dbcEvents(tx: Awaited<ReturnType<typeof fixtureTx>>): string[] {
  return tx.instructions.flatMap((o) =>
    o.inner
      .filter((i) => i.programId === DBC.programId && isEventCpi(i.data))
      .map((i) => DBC.eventByDiscriminator.get(discriminatorHex(i.data, 8))!),
  );
}

describe("DBC swaps", () => {
  test("buy: emits EvtSwap and EvtSwap2, yields exactly one trade", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    expect(dbcEvents(tx)).toEqual(["EvtSwap", "EvtSwap2"]);
    const d = decodeTransaction(tx);
    expect(programFacts(d)).toEqual([BUY]);
    expect(d.unknown).toEqual([]);
    expect(d.errors).toEqual([]);
  });

  test("sell: one trade", async () => {
    const tx = await fixtureTx("dbc-sell.enhanced.json");
    expect(dbcEvents(tx)).toEqual(["EvtSwap", "EvtSwap2"]);
    const d = decodeTransaction(tx);
    expect(programFacts(d)).toEqual([SELL]);
    expect(d.unknown).toEqual([]);
    expect(d.errors).toEqual([]);
  });

  test("legacy EvtSwap alone (older program) still yields the trade, without reserve and threshold", async () => {
    for (const [name, expected] of [
      ["dbc-buy.enhanced.json", BUY],
      ["dbc-sell.enhanced.json", SELL],
    ] as const) {
      const tx = await fixtureTx(name);
      const swap = tx.instructions[expected.ix]!;
      swap.inner.splice(3, 1); // drop the EvtSwap2 event-CPI
      expect(dbcEvents(tx)).toEqual(["EvtSwap"]);
      const d = decodeTransaction(tx);
      expect(programFacts(d)).toEqual([{ ...expected, inner: 2, quoteReserve: 0n, migrationThreshold: 0n }]);
      expect(d.errors).toEqual([]);
    }
  });

  // The fixtures' config collects fees in the quote token: the buy's fee came off its input
  // (EvtSwap2 excluded_fee_input_amount 196000000 < included 200000000), so it is in lamports;
  // the sell's came off its output (the two input amounts are equal), in lamports too.
  test("fees in the quote token: the buy's came off its input, the sell's off its output", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    const ev = DBC.types.decode("EvtSwap2", tx.instructions[6]!.inner[3]!.data, 16);
    expect([ev.swap_result.included_fee_input_amount, ev.swap_result.excluded_fee_input_amount]).toEqual([200_000_000n, 196_000_000n]);
    expect((programFacts(decodeTransaction(tx))[0] as Trade).feesIn).toBe("quote");
    const sell = await fixtureTx("dbc-sell.enhanced.json");
    const evSell = DBC.types.decode("EvtSwap2", sell.instructions[3]!.inner[3]!.data, 16);
    expect(evSell.swap_result.excluded_fee_input_amount).toBe(evSell.swap_result.included_fee_input_amount);
    expect((programFacts(decodeTransaction(sell))[0] as Trade).feesIn).toBe("quote");
  });

  // A config with collect_fee_mode 1 (OutputToken, as the mainnet fee_in_both config) takes a
  // buy's fee from its output: the whole input reaches the curve and the event says so
  // (excluded = included; legacy EvtSwap: actual_input_amount = amount_in). The fixture buy
  // with its input made whole: the fees are in the coin's atoms.
  test("fees in the output token (collect_fee_mode 1): a buy whose whole input reached the curve paid its fees in the coin", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    // EvtSwap2 body: pool 32, config 32, trade_direction 1, has_referral 1, swap_parameters 17, then
    // included_fee_input_amount (u64) and excluded_fee_input_amount (u64)
    expect(patchEventInt(tx.instructions[6]!.inner[3]!.data, 91, 200_000_000n)).toBe(196_000_000n);
    expect(programFacts(decodeTransaction(tx))).toEqual([{ ...BUY, feesIn: "base" }]);

    // the legacy event alone: EvtSwap body: pool 32, config 32, trade_direction 1, has_referral 1,
    // params (amount_in, minimum_amount_out) 16, then swap_result.actual_input_amount (u64)
    const legacy = await fixtureTx("dbc-buy.enhanced.json");
    legacy.instructions[6]!.inner.splice(3, 1);
    expect(patchEventInt(legacy.instructions[6]!.inner[2]!.data, 82, 200_000_000n)).toBe(196_000_000n);
    expect(programFacts(decodeTransaction(legacy))).toEqual([{ ...BUY, inner: 2, quoteReserve: 0n, migrationThreshold: 0n, feesIn: "base" }]);
    // and unpatched, the legacy buy's fee came off its input
    const legacyQuote = await fixtureTx("dbc-buy.enhanced.json");
    legacyQuote.instructions[6]!.inner.splice(3, 1);
    expect((programFacts(decodeTransaction(legacyQuote))[0] as Trade).feesIn).toBe("quote");
  });

  test("EvtSwap2 before EvtSwap still yields one trade, in execution order with other facts", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    const inner = tx.instructions[6]!.inner;
    [inner[2], inner[3]] = [inner[3]!, inner[2]!];
    const d = decodeTransaction(tx);
    expect(programFacts(d)).toEqual([{ ...BUY, inner: 2 }]);
  });

  test("an event whose pool differs from its swap instruction's pool is an error, not a trade", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    const swap = tx.instructions[6]!;
    swap.accounts = [...swap.accounts];
    swap.accounts[2] = CONFIG; // IDL account "pool"
    const d = decodeTransaction(tx);
    expect(programFacts(d)).toEqual([]);
    expect(d.errors.length).toBe(1);
    expect(d.errors[0]!.ix).toBe(6);
    expect(d.errors[0]!.inner).toBe(3);
    expect(d.errors[0]!.message).toContain("pool");
  });
});
