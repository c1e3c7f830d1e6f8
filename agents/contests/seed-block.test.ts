import { afterAll, expect, test } from "bun:test";
import { Connection } from "@solana/web3.js";
import { blockhashOfSlot, startRpcTestDouble } from "../../infra/testing/rpc-double";
import { findSeedBlock, SEED_SLOT_DELAY, seedBlockReader, seedSlotAfter } from "./seed-block";

const rpc = startRpcTestDouble();
afterAll(() => rpc.stop());
const connection = new Connection(rpc.url, "confirmed");
const reader = seedBlockReader(connection);

/** moves the double's chain so its current slot is `slot` */
const moveTo = (slot: number) => rpc.setBlockHeight(slot - (rpc.slot() - rpc.blockHeight()));

test("the committed slot is SEED_SLOT_DELAY after the cluster's slot; no seed until that slot is finalized", async () => {
  moveTo(10_000);
  const seedSlot = seedSlotAfter(await reader.currentSlot());
  expect(seedSlot).toBe(10_000 + SEED_SLOT_DELAY);
  expect(await findSeedBlock(reader, seedSlot)).toBeNull();
  moveTo(seedSlot - 1);
  expect(await findSeedBlock(reader, seedSlot)).toBeNull();
  moveTo(seedSlot);
  expect(await findSeedBlock(reader, seedSlot)).toEqual({ blockSlot: seedSlot, blockhash: blockhashOfSlot(seedSlot) });
  // the answer stays once given
  moveTo(seedSlot + 40);
  expect(await findSeedBlock(reader, seedSlot)).toEqual({ blockSlot: seedSlot, blockhash: blockhashOfSlot(seedSlot) });
  // and it is what anyone reads with getBlock
  expect((await connection.getBlock(seedSlot, { transactionDetails: "none", rewards: false, maxSupportedTransactionVersion: 0 }))?.blockhash).toBe(blockhashOfSlot(seedSlot));
});

test("a skipped seed slot: the next produced block seeds the draw, once it exists", async () => {
  moveTo(20_000);
  const seedSlot = 20_010;
  rpc.skipSlots(20_010, 20_011, 20_012);
  moveTo(20_012);
  expect(await findSeedBlock(reader, seedSlot)).toBeNull();
  moveTo(20_013);
  expect(await findSeedBlock(reader, seedSlot)).toEqual({ blockSlot: 20_013, blockhash: blockhashOfSlot(20_013) });
  // a real RPC refuses the skipped slot itself
  await expect(connection.getBlock(20_010, { transactionDetails: "none", rewards: false, maxSupportedTransactionVersion: 0 })).rejects.toThrow("skipped");
});

test("skips longer than one getBlocks window are walked past", async () => {
  moveTo(30_000);
  const seedSlot = 30_001;
  rpc.skipSlots(...Array.from({ length: 1_200 }, (_, i) => seedSlot + i));
  moveTo(seedSlot + 1_500);
  expect(await findSeedBlock(reader, seedSlot)).toEqual({ blockSlot: seedSlot + 1_200, blockhash: blockhashOfSlot(seedSlot + 1_200) });
});
