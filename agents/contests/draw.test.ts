import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import bs58 from "bs58";
import { drawContest, drawRaffle, drawSeed, snapshotHash, topHolders, type Holder } from "./draw";
import { recomputeRaffle, recomputeTopHolders } from "./testing/independent-draw";

// Known answers computed with a third implementation (Python 3 hashlib, integers from bytes with int.from_bytes,
// owners sorted by their encoded bytes), 2026-11-27, kept here as plain data.
const VECTOR_HOLDERS: Holder[] = [
  { owner: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", amount: 5_000_000n },
  { owner: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T", amount: 123_456_789_000n },
  { owner: "So11111111111111111111111111111111111111112", amount: 1n },
  { owner: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", amount: 77_000_000_000n },
  { owner: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263", amount: 0n },
  { owner: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", amount: 2_500_000_000n },
];
const VECTOR_BLOCKHASH = "GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi";
const VECTOR_SNAPSHOT_HASH = "ad2c9689530307eb28946654c733de40e7db146bac5a8190b04555f59fac91d3";
const VECTOR_SEED = "b7cdb6fc3ddc4b8a08ca7c23782cdd9d02ace38ec7c6af24ca44b9eb46be72a6";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const publicHolders = (hs: Holder[]) => hs.map((h) => ({ owner: h.owner, amount: h.amount.toString() }));

/** Deterministic pseudo-random numbers (xorshift), so the cross-check covers many shapes without flakiness. */
function xorshift(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
const fakeOwner = (rand: () => number) => bs58.encode(createHash("sha256").update(String(rand())).digest());

describe("sha256-cumw-v1", () => {
  test("known answers: snapshot hash, seed and draws (balance and uniform) as a separate Python implementation computed them", () => {
    expect(snapshotHash(VECTOR_HOLDERS)).toBe(VECTOR_SNAPSHOT_HASH);
    expect(hex(drawSeed(VECTOR_BLOCKHASH, "17", VECTOR_SNAPSHOT_HASH))).toBe(VECTOR_SEED);
    const seed = drawSeed(VECTOR_BLOCKHASH, "17", VECTOR_SNAPSHOT_HASH);
    expect(drawRaffle(VECTOR_HOLDERS, 3, "balance", seed).map((d) => [d.i, d.r.toString(), d.owner])).toEqual([
      [0, "46735588068", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"],
      [1, "37476558303", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"],
      [2, "1760400732", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"],
    ]);
    // 10 asked, 5 holders with an amount (the zero balance is never drawn)
    expect(drawRaffle(VECTOR_HOLDERS, 10, "uniform", seed).map((d) => [d.i, d.r.toString(), d.owner])).toEqual([
      [0, "1", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"],
      [1, "0", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"],
      [2, "2", "So11111111111111111111111111111111111111112"],
      [3, "0", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"],
      [4, "0", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"],
    ]);
  });

  test("the snapshot hash is of one `owner:amount` line per holder in ASCII order of the owner's text, whatever the input order", () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    expect(snapshotHash([...VECTOR_HOLDERS].reverse())).toBe(VECTOR_SNAPSHOT_HASH);
    // upper case sorts before lower case (ASCII), unlike a locale-aware comparison
    expect(snapshotHash([{ owner: "b", amount: 1n }, { owner: "B", amount: 2n }, { owner: "a", amount: 3n }])).toBe(sha("B:2\na:3\nb:1\n"));
  });

  test("the independent implementation agrees on 60 generated snapshots (sizes 1-300, both weightings, 1-50 winners)", async () => {
    const rand = xorshift(20261127);
    for (let run = 0; run < 60; run++) {
      const size = 1 + Math.floor(rand() * 300);
      const holders: Holder[] = Array.from({ length: size }, () => ({
        owner: fakeOwner(rand),
        // some zero balances, some huge ones (past 2^64 summed)
        amount: rand() < 0.1 ? 0n : BigInt(Math.floor(rand() * 1e6)) * (rand() < 0.2 ? 10n ** 12n : 1n),
      }));
      const winners = 1 + Math.floor(rand() * 50);
      const weighting = rand() < 0.5 ? "balance" : "uniform";
      const blockhash = fakeOwner(rand);
      const contestId = String(1 + Math.floor(rand() * 1e9));
      const mine = drawContest({ contestId, kind: "holders_raffle", weighting, winners, holders, snapshotSlot: 1, seed: { slot: 5, blockSlot: 6, blockhash } });
      const theirs = await recomputeRaffle({ holders: publicHolders(holders), contestId, blockhash, winners, weighting });
      expect(mine.proof.snapshotHash).toBe(theirs.snapshotHash);
      expect(mine.proof.draws).toEqual(theirs.draws);
      // winners are distinct holders with an amount, as many as asked or as there are
      const eligible = holders.filter((h) => h.amount > 0n).length;
      expect(mine.winners.length).toBe(Math.min(winners, eligible));
      expect(new Set(mine.winners.map((w) => w.owner)).size).toBe(mine.winners.length);
      expect(mine.winners.every((w) => w.amount > 0n)).toBe(true);
    }
  });

  test("one holder wins every time, whatever the seed; r is always 0 with a total weight of 1", () => {
    const one = [{ owner: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T", amount: 1n }];
    for (const blockhash of [VECTOR_BLOCKHASH, "11111111111111111111111111111111"]) {
      const draws = drawRaffle(one, 5, "balance", drawSeed(blockhash, "1", snapshotHash(one)));
      expect(draws).toEqual([{ i: 0, r: 0n, owner: one[0]!.owner }]);
    }
  });

  test("no holder with an amount: no draw (zero weights are never drawn, even uniformly)", () => {
    const zeros = [{ owner: "A", amount: 0n }, { owner: "B", amount: 0n }];
    const seed = drawSeed(VECTOR_BLOCKHASH, "3", snapshotHash(zeros));
    expect(drawRaffle(zeros, 3, "balance", seed)).toEqual([]);
    expect(drawRaffle(zeros, 3, "uniform", seed)).toEqual([]);
    expect(drawRaffle([], 3, "uniform", seed)).toEqual([]);
  });

  test("the seed changes with each of its three parts", () => {
    const base = hex(drawSeed(VECTOR_BLOCKHASH, "17", VECTOR_SNAPSHOT_HASH));
    expect(hex(drawSeed(VECTOR_BLOCKHASH, "18", VECTOR_SNAPSHOT_HASH))).not.toBe(base);
    expect(hex(drawSeed("GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zj", "17", VECTOR_SNAPSHOT_HASH))).not.toBe(base);
    expect(hex(drawSeed(VECTOR_BLOCKHASH, "17", "0".repeat(64)))).not.toBe(base);
  });

  test("refuses what is not a draw's input: a blockhash that is not 32 bytes, a hash that is not hex, an owner twice", () => {
    expect(() => drawSeed("abc", "1", VECTOR_SNAPSHOT_HASH)).toThrow("not 32");
    expect(() => drawSeed(VECTOR_BLOCKHASH, "1", VECTOR_SNAPSHOT_HASH.toUpperCase())).toThrow("hex");
    expect(() => drawContest({ contestId: "1", kind: "top_holders", weighting: "balance", winners: 1, holders: [{ owner: "A", amount: 1n }, { owner: "A", amount: 2n }], snapshotSlot: 1 })).toThrow("twice");
  });

  test("a raffle needs its seed block", () => {
    expect(() => drawContest({ contestId: "1", kind: "holders_raffle", weighting: "balance", winners: 1, holders: VECTOR_HOLDERS, snapshotSlot: 1 })).toThrow("seed");
  });
});

describe("top_holders", () => {
  test("the largest amounts win, ties by owner in ASCII order; zero balances never win; fewer holders than winners", () => {
    const holders: Holder[] = (
      [["c", 50n], ["B", 70n], ["a", 70n], ["d", 0n], ["A", 70n]] as const
    ).map(([owner, amount]) => ({ owner, amount }));
    expect(topHolders(holders, 2).map((h) => h.owner)).toEqual(["A", "B"]);
    expect(topHolders(holders, 10).map((h) => h.owner)).toEqual(["A", "B", "a", "c"]);
    expect(recomputeTopHolders(publicHolders(holders), 10)).toEqual(["A", "B", "a", "c"]);
    const { proof } = drawContest({ contestId: "9", kind: "top_holders", weighting: "balance", winners: 3, holders, snapshotSlot: 77 });
    expect(proof).toEqual({
      seedSlot: null, seedBlockSlot: null, blockhash: null, snapshotSlot: 77, snapshotHash: snapshotHash(holders), algorithm: "top-balance-v1",
      draws: [{ i: 0, r: null, owner: "A" }, { i: 1, r: null, owner: "B" }, { i: 2, r: null, owner: "a" }],
    });
  });
});
