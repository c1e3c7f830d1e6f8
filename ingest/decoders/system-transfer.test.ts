import { describe, expect, test } from "bun:test";
import type { SolBalanceChange, SolTransfer } from "../contract/facts";
import type { Instruction } from "../transaction";
import { decodeTransaction } from "./index";
import { SYSTEM_PROGRAM_ID } from "./system-transfer";
import { addr, FIXTURE_NAMES, fixtureTx, readFixture, syntheticTx } from "./testing";

const PAYER = "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf";
const WSOL_ATA = "7WmEeTwnj7SxvZ5Y1Tz88SvVTEMki6ifSa5ZXXLv1SPX";
const DBC_POOL_AUTHORITY = "FhVo3mqL8PW5pH5U2CN4XE33DokiyZnUwuGpH2hmHLuM";

function transferData(lamports: bigint, index = 2, length = 12): Uint8Array {
  const data = new Uint8Array(length);
  const view = new DataView(data.buffer);
  view.setUint32(0, index, true);
  if (length >= 12) view.setBigUint64(4, lamports, true);
  return data;
}
const transferIx = (from: string, to: string, lamports: bigint): Instruction => ({ programId: SYSTEM_PROGRAM_ID, accounts: [from, to], data: transferData(lamports) });

const solFacts = (facts: readonly { kind: string }[]) => facts.filter((f): f is SolTransfer | SolBalanceChange => f.kind === "sol_transfer" || f.kind === "sol_balance");
const short = (f: SolTransfer | SolBalanceChange) =>
  f.kind === "sol_transfer" ? [f.ix, f.inner, f.from, f.to, f.lamports] : [f.ix, f.inner, f.account, f.delta];

describe("real devnet transactions", () => {
  // Expected transfers read off each fixture's instruction tree (System program, index 2),
  // and agreeing with Helius's own nativeTransfers summary of the same transaction.
  const EXPECTED: Record<(typeof FIXTURE_NAMES)[number], (string | number | bigint)[][]> = {
    // wrap: the buyer funds its wSOL account (outer ix 3) before the swap
    "damm-v2-buy.enhanced.json": [[3, -1, PAYER, WSOL_ATA, 1_000_000_000n]],
    "damm-v2-sell.enhanced.json": [],
    "dbc-buy.enhanced.json": [[4, -1, PAYER, WSOL_ATA, 200_000_000n]],
    // the create-pool instruction pays the metadata account's rent (inner 8, accounts [payer, metadata])
    "dbc-create-pool.raw.json": [[0, 8, PAYER, "9va3fm3shPYemKqKLxVPmbfNApNes6EzNGSpSXMAQe8X", 15_115_600n]],
    "dbc-migrate-damm-v2.enhanced.json": [
      [0, 0, PAYER, DBC_POOL_AUTHORITY, 50_000_000n],
      [0, 15, DBC_POOL_AUTHORITY, "ECiDWQ4TjwnCyeUUJ4kVSKBWDqZphhNZ2xxW2xzykFg6", 1_357_200n],
      [0, 33, PAYER, "9gJBQbe8UzkWxLDWD9e2WzLuZQKikp3xrJydPPQPznyF", 1_357_200n],
    ],
    "dbc-sell.enhanced.json": [],
  };

  for (const name of FIXTURE_NAMES) {
    test(`${name}: System transfers, outer and inner, then the fee payer's SOL change without the fee`, async () => {
      const tx = await fixtureTx(name);
      const d = decodeTransaction(tx);
      expect(d.errors).toEqual([]);
      const json = await readFixture(name);
      // independently from the payload: the fee payer's balance change plus the fee it paid
      const payerDelta = name.endsWith(".raw.json")
        ? BigInt(json.meta.postBalances[0] - json.meta.preBalances[0] + json.meta.fee)
        : BigInt(json.accountData.find((a: { account: string }) => a.account === json.feePayer).nativeBalanceChange + json.fee);
      expect(tx.feePayer).toBe(PAYER);
      expect(solFacts(d.facts).map(short)).toEqual([...EXPECTED[name], [0, -3, PAYER, payerDelta]]);
      for (const f of solFacts(d.facts)) expect([f.signature, f.slot, f.blockTime]).toEqual([tx.signature, tx.slot, tx.blockTime]);
    });
  }

  test("the sol_balance of a buy is what the swap cost: dbc-buy spent 0.2 SOL plus one token account's rent", async () => {
    const d = decodeTransaction(await fixtureTx("dbc-buy.enhanced.json"));
    const balance = d.facts.find((f) => f.kind === "sol_balance");
    expect(balance?.kind === "sol_balance" && balance.delta).toBe(-(200_000_000n + 2_039_280n));
  });
});

describe("synthetic", () => {
  test("outer and inner transfers; u64 extremes; other System instructions and programs ignored", () => {
    const create: Instruction = { programId: SYSTEM_PROGRAM_ID, accounts: [addr(1), addr(2)], data: new Uint8Array(52) }; // createAccount (index 0)
    const other: Instruction = { programId: addr(40), accounts: [addr(1), addr(2)], data: transferData(5n) }; // same bytes, another program
    const tx = syntheticTx([
      { ...transferIx(addr(1), addr(2), 1n), inner: [] },
      { ...other, inner: [create, transferIx(addr(3), addr(4), 18_446_744_073_709_551_615n), other, transferIx(addr(5), addr(6), 0n)] },
    ]);
    const d = decodeTransaction(tx);
    expect(d.errors).toEqual([]);
    expect(d.unknown).toEqual([]);
    const key = { signature: "synthetic-signature", slot: 1000, blockTime: 1700000000 };
    expect(d.facts).toEqual([
      { ...key, kind: "sol_transfer", ix: 0, inner: -1, from: addr(1), to: addr(2), lamports: 1n },
      { ...key, kind: "sol_transfer", ix: 1, inner: 1, from: addr(3), to: addr(4), lamports: 18_446_744_073_709_551_615n },
      { ...key, kind: "sol_transfer", ix: 1, inner: 3, from: addr(5), to: addr(6), lamports: 0n },
    ]);
  });

  test("malformed transfers are errors, never a throw; the other facts still count", () => {
    const tx = syntheticTx([
      { programId: SYSTEM_PROGRAM_ID, accounts: [addr(1), addr(2)], data: transferData(7n, 2, 8), inner: [] },
      { programId: SYSTEM_PROGRAM_ID, accounts: [addr(1)], data: transferData(7n), inner: [transferIx(addr(1), addr(2), 9n)] },
      { programId: SYSTEM_PROGRAM_ID, accounts: [addr(1), addr(2)], data: transferData(7n, 2, 13), inner: [] },
      { programId: SYSTEM_PROGRAM_ID, accounts: [], data: new Uint8Array(2), inner: [] }, // too short to have an index: not a transfer
    ]);
    const d = decodeTransaction(tx);
    expect(d.errors).toEqual([
      { ix: 0, inner: -1, message: "system transfer: data is 8 bytes, expected 12" },
      { ix: 1, inner: -1, message: "system transfer: 1 accounts, expected 2" },
      { ix: 2, inner: -1, message: "system transfer: data is 13 bytes, expected 12" },
    ]);
    expect(d.facts.map((f) => [f.kind, f.ix, f.inner])).toEqual([["sol_transfer", 1, 0]]);
  });

  test("sol_balance: the fee payer's change plus the fee; none when only the fee moved or the source gave no balances", () => {
    const base = syntheticTx([]);
    const payer = base.feePayer;
    const balance = (nativeBalances: { account: string; delta: bigint }[], fee = 5000) =>
      decodeTransaction({ ...base, fee, nativeBalances }).facts.filter((f) => f.kind === "sol_balance");
    expect(balance([{ account: addr(9), delta: 3n }, { account: payer, delta: -1_000_005_000n }])).toEqual([
      { kind: "sol_balance", signature: base.signature, ix: 0, inner: -3, slot: base.slot, blockTime: base.blockTime, account: payer, delta: -1_000_000_000n },
    ]);
    expect(balance([{ account: payer, delta: 2_000_000n }], 0).map((f) => f.kind === "sol_balance" && f.delta)).toEqual([2_000_000n]);
    expect(balance([{ account: payer, delta: -5000n }])).toEqual([]);
    expect(balance([])).toEqual([]);
    // the payer absent from a reported list did not move at all: the fee came back to it
    expect(balance([{ account: addr(9), delta: 3n }]).map((f) => f.kind === "sol_balance" && f.delta)).toEqual([5000n]);
    expect(decodeTransaction({ ...base, failed: true, nativeBalances: [{ account: payer, delta: -9000n }] }).facts).toEqual([]);
  });
});
