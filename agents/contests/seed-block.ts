/**
 * The contest's seed block. When a raffle's snapshot is fixed it commits to a slot
 * SEED_SLOT_DELAY slots after the cluster's current slot (about a minute at 400 ms a slot),
 * a block nobody can know yet. Once that slot is finalized, the draw is seeded by the block
 * produced at it, or, when the slot was skipped (no block), by the first block produced after it.
 * Only finalized blocks count, so the answer never changes once given.
 */
import type { Connection } from "@solana/web3.js";

/** Slots between the cluster's slot when the snapshot is fixed and the committed seed slot. */
export const SEED_SLOT_DELAY = 150;
/** Slots asked about per getBlocks call while looking for the first produced block. */
const BLOCKS_WINDOW = 500;

export type SeedBlock = { blockSlot: number; blockhash: string };

/** What the seed needs of the chain (web3.js in production, see `seedBlockReader`). */
export type SeedBlockReader = {
  /** the cluster's current slot, at "confirmed" (to commit a slot ahead of it) */
  currentSlot(): Promise<number>;
  finalizedSlot(): Promise<number>;
  /** slots of [from, to] that produced a finalized block, ascending */
  producedSlots(from: number, to: number): Promise<number[]>;
  /** the blockhash of the finalized block at `slot` */
  blockhash(slot: number): Promise<string>;
};

export function seedBlockReader(connection: Connection): SeedBlockReader {
  return {
    currentSlot: () => connection.getSlot("confirmed"),
    finalizedSlot: () => connection.getSlot("finalized"),
    producedSlots: (from, to) => connection.getBlocks(from, to, "finalized"),
    async blockhash(slot) {
      const block = await connection.getBlock(slot, { commitment: "finalized", transactionDetails: "none", rewards: false, maxSupportedTransactionVersion: 0 });
      if (!block) throw new Error(`getBlock(${slot}): no block, though getBlocks listed it`);
      return block.blockhash;
    },
  };
}

/** The slot to commit to, given the slot the cluster is at now. */
export const seedSlotAfter = (currentSlot: number) => currentSlot + SEED_SLOT_DELAY;

/**
 * The block that seeds a draw committed to `seedSlot`: the first finalized block at or after it.
 * null while none is finalized yet (the slot is still ahead, or every slot since was skipped).
 */
export async function findSeedBlock(reader: SeedBlockReader, seedSlot: number): Promise<SeedBlock | null> {
  const finalized = await reader.finalizedSlot();
  for (let from = seedSlot; from <= finalized; from += BLOCKS_WINDOW) {
    const to = Math.min(finalized, from + BLOCKS_WINDOW - 1);
    const first = (await reader.producedSlots(from, to)).filter((s) => s >= seedSlot).sort((a, b) => a - b)[0];
    if (first !== undefined) return { blockSlot: first, blockhash: await reader.blockhash(first) };
  }
  return null;
}
