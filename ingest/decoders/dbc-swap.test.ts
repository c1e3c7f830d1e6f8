import { describe, expect, test } from "bun:test";
import type { Trade } from "../contract/facts";
import { discriminatorHex, isEventCpi } from "./event-cpi";
import { decodeTransaction } from "./index";
import { DBC } from "./program-coder";
import { fixtureTx, programFacts } from "./testing";

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
