import { expect, test } from "bun:test";
import { airdropShares, MIN_PAYOUT_LAMPORTS } from "./shares";

const h = (owner: string, amount: bigint) => ({ owner, amount });
const sum = (xs: { lamports: bigint }[]) => xs.reduce((s, x) => s + x.lamports, 0n);

test("pro rata, exact: shares add up to the amount; rounding lamports go to the largest remainders", () => {
  const r = airdropShares([h("a", 1n), h("b", 1n), h("c", 1n)], 10_000_000n);
  expect(r.shares.map((s) => [s.owner, s.lamports])).toEqual([["a", 3_333_334n], ["b", 3_333_333n], ["c", 3_333_333n]]);
  expect(sum(r.shares)).toBe(10_000_000n);
  expect(r.folded).toEqual({ holders: 0, atoms: 0n });
});

test("shares below the minimum payout are folded into the others, smallest holders first", () => {
  // 2,000,000 lamports over balances 60/30/10: 1.2M, 0.6M, 0.2M -> the two small ones are below 890,880
  const r = airdropShares([h("small", 10n), h("big", 60n), h("mid", 30n)], 2_000_000n);
  expect(r.shares).toEqual([{ owner: "big", balance: 60n, lamports: 2_000_000n }]);
  expect(r.folded).toEqual({ holders: 2, atoms: 40n });
  // with 3,000,000: 60/90 x 3M = 2M, 30/90 x 3M = 1M: both clear the minimum once the smallest is folded
  const r2 = airdropShares([h("small", 10n), h("big", 60n), h("mid", 30n)], 3_000_000n);
  expect(r2.shares.map((s) => s.lamports)).toEqual([2_000_000n, 1_000_000n]);
  expect(r2.folded.holders).toBe(1);
});

test("every share at least the minimum, sum exact, over many holders", () => {
  const entries = Array.from({ length: 500 }, (_, i) => h(`o${String(i).padStart(3, "0")}`, BigInt((i * 7919) % 1000 + 1)));
  const r = airdropShares(entries, 123_456_789n);
  expect(sum(r.shares)).toBe(123_456_789n);
  expect(r.shares.every((s) => s.lamports >= MIN_PAYOUT_LAMPORTS)).toBe(true);
  expect(r.shares.length + r.folded.holders).toBe(500);
});

test("holders of equal balance are paid or folded together", () => {
  // 4 equal holders, 3,000,000: 750,000 each < minimum; 3 of them would get 1M each but ties stay together
  const r = airdropShares([h("a", 5n), h("b", 5n), h("c", 5n), h("d", 5n), h("top", 100n)], 3_000_000n);
  expect(r.shares.map((s) => s.owner)).toEqual(["top"]);
  // all equal and too many to pay each the minimum: a tie is cut in address order rather than pay nobody
  const tie = airdropShares([h("d", 5n), h("b", 5n), h("a", 5n), h("c", 5n)], 2_000_000n);
  expect(tie.shares.map((s) => [s.owner, s.lamports])).toEqual([["a", 1_000_000n], ["b", 1_000_000n]]);
});

test("top holders only, when asked; nothing below the minimum is paid at all", () => {
  const r = airdropShares([h("a", 3n), h("b", 2n), h("c", 1n)], 5_000_000n, { topHolders: 2 });
  expect(r.shares.map((s) => [s.owner, s.lamports])).toEqual([["a", 3_000_000n], ["b", 2_000_000n]]);
  expect(r.eligible).toBe(2);
  expect(airdropShares([h("a", 1n)], MIN_PAYOUT_LAMPORTS - 1n).shares).toEqual([]);
  expect(airdropShares([], 5_000_000n).shares).toEqual([]);
});
