import { describe, expect, test } from "bun:test";
import type { ChainTransaction } from "../transaction";
import { EVENT_IX_TAG } from "./event-cpi";
import { decodeTransaction } from "./index";
import { DBC } from "./program-coder";
import { addr, bn, eventCpi, FIXTURE_NAMES, fixtureTx, key, programFacts, syntheticTx } from "./testing";

// then one token_balance per token account moved (counted in the fixtures' balance lists), then the fee payer's sol_balance
const balances = (n: number) => Array<string>(n).fill("token_balance");
const FACT_KINDS: Record<(typeof FIXTURE_NAMES)[number], string[]> = {
  "damm-v2-buy.enhanced.json": ["sol_transfer", "trade", ...balances(3), "sol_balance"],
  "damm-v2-sell.enhanced.json": ["trade", ...balances(3), "sol_balance"],
  "dbc-buy.enhanced.json": ["sol_transfer", "trade", ...balances(3), "sol_balance"],
  "dbc-create-pool.raw.json": ["sol_transfer", "pool_created", ...balances(1), "sol_balance"],
  "dbc-migrate-damm-v2.enhanced.json": ["migration", "sol_transfer", "sol_transfer", "sol_transfer", ...balances(6), "sol_balance"],
  "dbc-sell.enhanced.json": ["trade", ...balances(3), "sol_balance"],
};

describe("every fixture", () => {
  for (const name of FIXTURE_NAMES) {
    test(`${name}: facts without errors, keys unique, tx summary copied`, async () => {
      const tx = await fixtureTx(name);
      const d = decodeTransaction(tx);
      expect(d.tx).toEqual({
        signature: tx.signature,
        slot: tx.slot,
        blockTime: tx.blockTime,
        feePayer: tx.feePayer,
        failed: false,
      });
      expect(d.facts.map((f) => f.kind as string)).toEqual(FACT_KINDS[name]!);
      expect(d.errors).toEqual([]);
      const keys = d.facts.map((f) => `${f.signature}/${f.ix}/${f.inner}`);
      expect(new Set(keys).size).toBe(keys.length);
    });

    test(`${name}: failed on-chain yields no facts`, async () => {
      const tx: ChainTransaction = { ...(await fixtureTx(name)), failed: true };
      const d = decodeTransaction(tx);
      expect(d.tx.failed).toBe(true);
      expect(d.facts).toEqual([]);
      expect(d.unknown).toEqual([]);
      expect(d.errors).toEqual([]);
    });
  }

  test("a copy of the dbc-buy webhook with transactionError set yields no facts", async () => {
    const { normalizeWebhookTransaction } = await import("../normalize");
    const { readFixture } = await import("./testing");
    const e = await readFixture("dbc-buy.enhanced.json");
    e.transactionError = { InstructionError: [6, { Custom: 6001 }] };
    const r = normalizeWebhookTransaction(e);
    if (!r.ok) throw new Error(r.reason);
    expect(decodeTransaction(r.tx).facts).toEqual([]);
  });
});

describe("bad data never throws", () => {
  test("a truncated EvtSwap2 is an error, and the legacy EvtSwap does not stand in for it", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    const ev = tx.instructions[6]!.inner[3]!;
    ev.data = ev.data.subarray(0, 60);
    const d = decodeTransaction(tx);
    expect(programFacts(d)).toEqual([]);
    expect(d.errors.length).toBe(1);
    expect(d.errors[0]).toMatchObject({ ix: 6, inner: 3 });
    expect(d.errors[0]!.message).toStartWith("EvtSwap2: malformed:");
  });

  test("an event-CPI with only tag and discriminator is an error", async () => {
    const tx = await fixtureTx("dbc-create-pool.raw.json");
    const ev = tx.instructions[0]!.inner[14]!;
    ev.data = ev.data.subarray(0, 16);
    const d = decodeTransaction(tx);
    expect(programFacts(d)).toEqual([]);
    expect(d.errors.map((e) => [e.ix, e.inner, e.message.split(":")[0]])).toEqual([[0, 14, "EvtInitializePool"]]);
  });

  test("an unknown instruction of a known program is recorded and does not parent the events after it", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    const swap = tx.instructions[6]!;
    swap.data = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, ...swap.data.subarray(8));
    const d = decodeTransaction(tx);
    expect(programFacts(d)).toEqual([]);
    expect(d.unknown).toEqual([{ program: DBC.programId, discriminator: "0102030405060708", ix: 6, inner: -1 }]);
    expect(d.errors).toEqual([
      { ix: 6, inner: 3, message: "EvtSwap2: emitted by unexpected instruction unknown(0102030405060708)" },
    ]);
  });

  test("an unknown event discriminator is recorded with its program", async () => {
    const tx = await fixtureTx("dbc-sell.enhanced.json");
    const ev = tx.instructions[3]!.inner[2]!; // EvtSwap
    ev.data = new Uint8Array(ev.data);
    ev.data.set([9, 9, 9, 9, 9, 9, 9, 9], 8);
    const d = decodeTransaction(tx);
    expect(programFacts(d).length).toBe(1);
    expect(d.unknown).toEqual([{ program: DBC.programId, discriminator: "0909090909090909", ix: 3, inner: 2 }]);
  });

  test("events only pair with an instruction of the same outer instruction", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    // move the swap's events under the next outer instruction (a token CloseAccount)
    const moved = tx.instructions[6]!.inner.splice(2, 2);
    tx.instructions[7]!.inner.push(...moved);
    const d = decodeTransaction(tx);
    expect(programFacts(d)).toEqual([]);
    expect(d.errors).toEqual([{ ix: 7, inner: 1, message: "EvtSwap2: no emitting instruction found" }]);
  });

  test("an outer instruction carrying the event tag is an instruction, not an event", () => {
    const ev = eventCpi(DBC, "EvtCurveComplete", {
      pool: key(addr(2)),
      config: key(addr(3)),
      base_reserve: bn(1),
      quote_reserve: bn(2),
    });
    const d = decodeTransaction(syntheticTx([{ ...ev, inner: [] }]));
    expect(programFacts(d)).toEqual([]);
    expect(d.unknown).toEqual([
      { program: DBC.programId, discriminator: Buffer.from(EVENT_IX_TAG).toString("hex"), ix: 0, inner: -1 },
    ]);
  });

  test("an empty transaction decodes to nothing", () => {
    const d = decodeTransaction(syntheticTx([]));
    expect(d).toEqual({
      tx: { signature: "synthetic-signature", slot: 1000, blockTime: 1700000000, feePayer: addr(1), failed: false },
      facts: [],
      unknown: [],
      errors: [],
    });
  });
});
