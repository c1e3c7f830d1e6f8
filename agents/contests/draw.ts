/**
 * The contest draw (pure), algorithm "sha256-cumw-v1", exactly as the README's "Verifiable
 * contests" section states it, so anyone can recompute the winners from the public record
 * (GET /v1/daemons/:mint/contests/:id and its /snapshot, plus the seed block from any RPC):
 *
 *   order         owners compared as their base58 text, byte by byte (ASCII order; not the order of the decoded keys)
 *   snapshotHash  SHA-256 over the lines `owner:amount\n` of every snapshot holder in that order (amount in
 *                 token atoms, decimal, no leading zeros); published as 64 lowercase hex digits
 *   seed          SHA-256( the seed block's blockhash, base58-decoded: 32 bytes
 *                        ‖ the contest id (decimal text, e.g. "17") as UTF-8
 *                        ‖ snapshotHash as its 32 raw bytes, not its hex text )
 *   pool          the snapshot holders with an amount above 0, in that order; weight = amount (`balance`) or 1 (`uniform`)
 *   draw i        (i = 0, 1, … while i < winners and the pool is not empty)
 *                 r_i = SHA-256(seed ‖ i as 4 bytes little-endian), read as a big-endian unsigned 256-bit
 *                 integer, modulo W_i, the total weight of the pool at draw i;
 *                 the winner is the first owner of the pool whose cumulative weight (its own included)
 *                 is above r_i; it leaves the pool (so W_{i+1} = W_i - its weight)
 *
 * Winner i takes prize i. `top_holders` draws nothing: the largest amounts win, ties by owner in that order.
 */
import { createHash } from "node:crypto";
import bs58 from "bs58";
import { byOwner, snapshotHash } from "../treasury/snapshot";

export const RAFFLE_ALGORITHM = "sha256-cumw-v1";
export const TOP_HOLDERS_ALGORITHM = "top-balance-v1";

export type Holder = { owner: string; amount: bigint };
export type Weighting = "balance" | "uniform";
export type Draw = { i: number; r: bigint; owner: string };

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** The holders in the draw's order; throws when an owner appears twice or an amount is negative (a snapshot is one line per owner). */
export function sortedHolders(holders: readonly Holder[]): Holder[] {
  const sorted = [...holders].sort(byOwner);
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]!.amount < 0n) throw new Error(`holder ${sorted[i]!.owner} has a negative amount`);
    if (i > 0 && sorted[i]!.owner === sorted[i - 1]!.owner) throw new Error(`holder ${sorted[i]!.owner} appears twice in the snapshot`);
  }
  return sorted;
}

export { snapshotHash };

/** The seed: SHA-256(blockhash's 32 bytes ‖ contest id as UTF-8 ‖ snapshotHash's 32 raw bytes). */
export function drawSeed(blockhash: string, contestId: string, snapshotHashHex: string): Uint8Array {
  const block = bs58.decode(blockhash);
  if (block.length !== 32) throw new Error(`blockhash ${blockhash} is ${block.length} bytes, not 32`);
  if (!/^[0-9a-f]{64}$/.test(snapshotHashHex)) throw new Error("snapshotHash must be 64 lowercase hex digits");
  return sha256(block, new TextEncoder().encode(contestId), Buffer.from(snapshotHashHex, "hex"));
}

/** r before the modulo: SHA-256(seed ‖ i as u32 LE) as a big-endian integer. */
function rawR(seed: Uint8Array, i: number): bigint {
  const index = new Uint8Array(4);
  new DataView(index.buffer).setUint32(0, i, true);
  return BigInt(`0x${hex(sha256(seed, index))}`);
}

/** The raffle's draws: at most `winners`, fewer when the pool (holders with an amount) runs out. */
export function drawRaffle(holders: readonly Holder[], winners: number, weighting: Weighting, seed: Uint8Array): Draw[] {
  const pool = sortedHolders(holders)
    .filter((h) => h.amount > 0n)
    .map((h) => ({ owner: h.owner, weight: weighting === "uniform" ? 1n : h.amount }));
  let total = pool.reduce((s, h) => s + h.weight, 0n);
  const draws: Draw[] = [];
  for (let i = 0; i < winners && pool.length > 0; i++) {
    const r = rawR(seed, i) % total;
    let cumulative = 0n;
    let at = 0;
    for (; at < pool.length; at++) {
      cumulative += pool[at]!.weight;
      if (r < cumulative) break;
    }
    const [won] = pool.splice(at, 1);
    total -= won!.weight;
    draws.push({ i, r, owner: won!.owner });
  }
  return draws;
}

/** top_holders: the `winners` largest amounts above 0, ties by owner in the draw's order. */
export function topHolders(holders: readonly Holder[], winners: number): Holder[] {
  return sortedHolders(holders)
    .filter((h) => h.amount > 0n)
    .sort((a, b) => (a.amount === b.amount ? byOwner(a, b) : a.amount > b.amount ? -1 : 1))
    .slice(0, winners);
}

/** The proof published with a drawn contest (numbers that may pass 2^53 are decimal strings). */
export type DrawProof = {
  seedSlot: number | null;
  seedBlockSlot: number | null;
  blockhash: string | null;
  snapshotSlot: number;
  snapshotHash: string;
  algorithm: typeof RAFFLE_ALGORITHM | typeof TOP_HOLDERS_ALGORITHM;
  draws: { i: number; r: string | null; owner: string }[];
};

export type DrawInput = {
  contestId: string;
  kind: "holders_raffle" | "top_holders";
  weighting: Weighting;
  winners: number;
  holders: readonly Holder[];
  snapshotSlot: number;
  /** the committed seed slot and the block that seeds the draw (the first produced at or after it); raffles only */
  seed?: { slot: number; blockSlot: number; blockhash: string };
};

/** Winners in prize order and the proof. */
export function drawContest(d: DrawInput): { winners: Holder[]; proof: DrawProof } {
  const hash = snapshotHash(sortedHolders(d.holders));
  const amountOf = new Map(d.holders.map((h) => [h.owner, h.amount]));
  if (d.kind === "top_holders") {
    const top = topHolders(d.holders, d.winners);
    return {
      winners: top,
      proof: {
        seedSlot: null, seedBlockSlot: null, blockhash: null, snapshotSlot: d.snapshotSlot, snapshotHash: hash,
        algorithm: TOP_HOLDERS_ALGORITHM, draws: top.map((h, i) => ({ i, r: null, owner: h.owner })),
      },
    };
  }
  if (!d.seed) throw new Error("a raffle is drawn from its seed block");
  const draws = drawRaffle(d.holders, d.winners, d.weighting, drawSeed(d.seed.blockhash, d.contestId, hash));
  return {
    winners: draws.map((x) => ({ owner: x.owner, amount: amountOf.get(x.owner)! })),
    proof: {
      seedSlot: d.seed.slot, seedBlockSlot: d.seed.blockSlot, blockhash: d.seed.blockhash, snapshotSlot: d.snapshotSlot, snapshotHash: hash,
      algorithm: RAFFLE_ALGORITHM, draws: draws.map((x) => ({ i: x.i, r: x.r.toString(), owner: x.owner })),
    },
  };
}
