import { expect, test } from "bun:test";
import type { Migration } from "../contract/facts";
import { discriminatorHex, isEventCpi } from "./event-cpi";
import { decodeTransaction } from "./index";
import { DAMM_V2, DBC } from "./program-coder";
import { anchorInstruction, fixtureTx, programFacts, syntheticTx } from "./testing";

const MIGRATION: Migration = {
  signature: "4hhaf2y5mTNM2vdYc82G3Se637caBDYBNyWiwBQHsJnCaBV8WCmdectj5nKanthrcF6rcHtYaK6Gc5cCv7rsjqXs",
  ix: 0,
  inner: -1,
  slot: 415185376,
  blockTime: 1760695648,
  kind: "migration",
  pool: "6df83M2zCRgxqVvjpUKMo8GWmGtcb6ojbZiNwjMBnb1i",
  config: "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew",
  mint: "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx",
  quoteMint: "So11111111111111111111111111111111111111112",
  dammPool: "3x9G9Cpi33HvAxreN1KMiqqCtybXC8uyj3myAKTCuKV9",
  // cp-amm EvtInitializePool at inner 20: sqrt_price of the new pool
  sqrtPrice: 41_248_173_712_355_948n,
};

function events(tx: Awaited<ReturnType<typeof fixtureTx>>): string[] {
  return tx.instructions[0]!.inner.flatMap((i) => {
    const p = i.programId === DBC.programId ? DBC : i.programId === DAMM_V2.programId ? DAMM_V2 : null;
    if (!p || !isEventCpi(i.data)) return [];
    const hex = discriminatorHex(i.data, 8);
    return [p.eventByDiscriminator.get(hex) ?? `unknown:${hex}`];
  });
}

test("migration_damm_v2: the instruction is the fact; sqrtPrice from cp-amm EvtInitializePool", async () => {
  const tx = await fixtureTx("dbc-migrate-damm-v2.enhanced.json");
  // no DBC event at all; cp-amm events of an older version, one of which the IDL lacks
  expect(events(tx)).toEqual([
    "EvtCreatePosition",
    "EvtInitializePool",
    "EvtPermanentLockPosition",
    "EvtCreatePosition",
    "unknown:aff2089d1ef7b9a9",
    "EvtLiquidityChange",
    "EvtPermanentLockPosition",
  ]);
  const d = decodeTransaction(tx);
  expect(programFacts(d)).toEqual([MIGRATION]);
  expect(d.unknown).toEqual([
    { program: "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG", discriminator: "aff2089d1ef7b9a9", ix: 0, inner: 39 },
  ]);
  expect(d.errors).toEqual([]);
});

test("without the cp-amm EvtInitializePool the sqrt price is 0", async () => {
  const tx = await fixtureTx("dbc-migrate-damm-v2.enhanced.json");
  tx.instructions[0]!.inner.splice(20, 1);
  const d = decodeTransaction(tx);
  expect(programFacts(d)).toEqual([{ ...MIGRATION, sqrtPrice: 0n }]);
});

test("a malformed cp-amm EvtInitializePool is an error; the migration stays, with price 0", async () => {
  const tx = await fixtureTx("dbc-migrate-damm-v2.enhanced.json");
  const ev = tx.instructions[0]!.inner[20]!;
  ev.data = ev.data.subarray(0, 40);
  const d = decodeTransaction(tx);
  expect(programFacts(d)).toEqual([{ ...MIGRATION, sqrtPrice: 0n }]);
  expect(d.errors.map((e) => [e.ix, e.inner, e.message.split(":")[0]])).toEqual([[0, 20, "EvtInitializePool"]]);
});

test("as an inner instruction (called through another program) the fact key is its inner position", () => {
  const accounts = {
    virtual_pool: MIGRATION.pool,
    config: MIGRATION.config,
    pool: MIGRATION.dammPool,
    base_mint: MIGRATION.mint,
    quote_mint: MIGRATION.quoteMint,
  };
  const ix = anchorInstruction(DBC, "migration_damm_v2", {}, accounts);
  const keeper = { programId: "11111111111111111111111111111111", accounts: [], data: new Uint8Array([1]) };
  const d = decodeTransaction(syntheticTx([{ ...keeper, inner: [keeper, ix] }]));
  expect(programFacts(d)).toEqual([
    { ...MIGRATION, signature: "synthetic-signature", slot: 1000, blockTime: 1700000000, inner: 1, sqrtPrice: 0n },
  ]);
});
