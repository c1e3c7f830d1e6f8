import { expect, test } from "bun:test";
import type { PoolCreated } from "../contract/facts";
import { decodeTransaction } from "./index";
import { fixtureTx, programFacts } from "./testing";
import { DBC } from "./program-coder";

test("pool creation (raw webhook): EvtInitializePool + initialize_virtual_pool_with_spl_token args", async () => {
  const d = decodeTransaction(await fixtureTx("dbc-create-pool.raw.json"));
  const expected: PoolCreated = {
    signature: "5hsqkSAZ9qcF5yNkXi4P7oCU2Uw7ydVQQ9oCu6J9Gy418tzygUBxmzTPbU1k2VR3a9a1vi9pxddUwtMvy9218PFL",
    ix: 0,
    inner: 14,
    slot: 415181032,
    blockTime: 1760693966,
    kind: "pool_created",
    pool: "6df83M2zCRgxqVvjpUKMo8GWmGtcb6ojbZiNwjMBnb1i",
    config: "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew",
    creator: "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf",
    mint: "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx",
    quoteMint: "So11111111111111111111111111111111111111112",
    poolType: 0,
    name: "Fuck Around Find Out",
    symbol: "FAFO",
    uri: "https://icm-bucket.sfo3.digitaloceanspaces.com/metadata/1760693948752-fuck-around-find-out.json",
    payer: "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf",
  };
  expect(programFacts(d)).toEqual([expected]);
  expect(d.unknown).toEqual([]);
  expect(d.errors).toEqual([]);
});

test("an EvtInitializePool under some other instruction is an error", async () => {
  const tx = await fixtureTx("dbc-create-pool.raw.json");
  const outer = tx.instructions[0]!;
  // a swap discriminator in place of initialize_virtual_pool_with_spl_token
  outer.data = Uint8Array.of(0xf8, 0xc6, 0x9e, 0x91, 0xe1, 0x75, 0x87, 0xc8, ...new Uint8Array(16));
  const d = decodeTransaction(tx);
  expect(programFacts(d)).toEqual([]);
  expect(d.errors).toEqual([
    { ix: 0, inner: 14, message: "EvtInitializePool: emitted by unexpected instruction swap" },
  ]);
});

test("a NUL in the coin's name, symbol or URI is removed (Postgres text cannot hold it)", async () => {
  const tx = await fixtureTx("dbc-create-pool.raw.json");
  const outer = tx.instructions[0]!;
  // the recorded creation, its arguments rewritten as a creator could have written them
  const decoded = DBC.coder.instruction.decode(Buffer.from(outer.data)) as { name: string; data: { params: Record<string, unknown> } };
  const params = { ...decoded.data.params, name: "Fuck Around\u0000 Find Out", symbol: "FA\u0000FO\u0000", uri: "\u0000https://example.org/x.json" };
  outer.data = new Uint8Array(DBC.coder.instruction.encode(decoded.name, { params }));
  const d = decodeTransaction(tx);
  expect(d.errors).toEqual([]);
  expect(programFacts(d)).toMatchObject([{ kind: "pool_created", name: "Fuck Around Find Out", symbol: "FAFO", uri: "https://example.org/x.json" }]);
});
