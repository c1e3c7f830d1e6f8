import { describe, expect, test } from "bun:test";
import { ApiError, parseOrThrow } from "../errors";
import { ContestBody, endsAtProblems, limitProblems, MIN_PAYOUT_LAMPORTS, prizesOf, specHash, specOf, type ContestSpec } from "./model";

const NOW = new Date("2026-11-27T12:00:00.000Z");
const spec = (o: Partial<ContestSpec> = {}): ContestSpec => ({
  kind: "holders_raffle", weighting: "balance", title: "t", rules: "", budgetLamports: 300_000_000n, winners: 3, splitBps: null,
  endsAt: new Date(NOW.getTime() + 3600_000), ...o,
});

describe("prizesOf", () => {
  test("the even split: equal prizes, the lamports left over one each to the first ranks; the sum is the budget", () => {
    expect(prizesOf(300_000_000n, 3, null)).toEqual([100_000_000n, 100_000_000n, 100_000_000n]);
    expect(prizesOf(100_000_002n, 3, null)).toEqual([33_333_334n, 33_333_334n, 33_333_334n]);
    expect(prizesOf(100_000_001n, 3, null)).toEqual([33_333_334n, 33_333_334n, 33_333_333n]);
    expect(prizesOf(1_999_999_999n, 50, null).reduce((a, b) => a + b, 0n)).toBe(1_999_999_999n);
  });

  test("a split in basis points: floor of each share, what the floors leave one lamport each to the first ranks", () => {
    // 1,000,000,007 × 5000/10000 = 500,000,003.5 → 500,000,003; × 3000 → 300,000,002.1 → 300,000,002; × 2000 → 200,000,001.4 → 200,000,001; 1 left
    expect(prizesOf(1_000_000_007n, 3, [5000, 3000, 2000])).toEqual([500_000_004n, 300_000_002n, 200_000_001n]);
    const p = prizesOf(1_234_567_891n, 7, [3000, 2000, 1500, 1500, 1000, 700, 300]);
    expect(p.reduce((a, b) => a + b, 0n)).toBe(1_234_567_891n);
  });
});

describe("limits", () => {
  test("a valid request has no problem", () => {
    expect(limitProblems(spec())).toEqual([]);
    expect(limitProblems(spec({ kind: "top_holders", winners: 1, budgetLamports: MIN_PAYOUT_LAMPORTS }))).toEqual([]);
    expect(endsAtProblems(new Date(NOW.getTime() + 60_000), NOW)).toEqual([]);
    expect(endsAtProblems(new Date(NOW.getTime() + 30 * 24 * 3600_000), NOW)).toEqual([]);
  });

  test("endsAt from 1 minute to 30 days ahead, to the millisecond", () => {
    for (const ms of [59_999, 0, -1000, 30 * 24 * 3600_000 + 1])
      expect(endsAtProblems(new Date(NOW.getTime() + ms), NOW)).toEqual([{ field: "endsAt", message: "must be from 1 minute to 30 days ahead (now is 2026-11-27T12:00:00.000Z)" }]);
  });

  test("every prize between the minimum payout and 0.1 SOL: the even split told once, a split per rank", () => {
    expect(limitProblems(spec({ budgetLamports: 300_000_004n }))).toEqual([
      { field: "budgetLamports", message: "an even split gives prizes of 100000001-100000002 lamports; every prize is between the minimum payout of 890880 lamports and 0.1 SOL (100000000 lamports)" },
    ]);
    expect(limitProblems(spec({ budgetLamports: 2_672_639n }))).toEqual([
      { field: "budgetLamports", message: "an even split gives prizes of 890879-890880 lamports; every prize is between the minimum payout of 890880 lamports and 0.1 SOL (100000000 lamports)" },
    ]);
    expect(limitProblems(spec({ budgetLamports: 2_672_640n }))).toEqual([]);
    expect(limitProblems(spec({ budgetLamports: 150_000_000n, splitBps: [8000, 1990, 10] }))).toEqual([
      { field: "splitBps.0", message: "prize 0 would be 120000000 lamports; every prize is between the minimum payout of 890880 lamports and 0.1 SOL (100000000 lamports)" },
      { field: "splitBps.2", message: "prize 2 would be 150000 lamports; every prize is between the minimum payout of 890880 lamports and 0.1 SOL (100000000 lamports)" },
    ]);
  });

  test("splitBps: one entry per winner, summing to 10,000; weighting is the raffle's", () => {
    expect(limitProblems(spec({ splitBps: [5000, 5000] }))).toEqual([{ field: "splitBps", message: "must have one entry per winner (3), has 2" }]);
    expect(limitProblems(spec({ splitBps: [5000, 3000, 1000], kind: "top_holders", weighting: "uniform" }))).toEqual([
      { field: "weighting", message: "top_holders ranks by balance; weighting applies to holders_raffle only" },
      { field: "splitBps", message: "must sum to 10000, sums to 9000" },
    ]);
  });
});

describe("ContestBody", () => {
  const problems = (body: unknown) => {
    try {
      parseOrThrow(ContestBody, body, "body");
    } catch (e) {
      return (e as ApiError).details;
    }
    return [];
  };

  test("defaults: balance weighting, no rules, the even split; ref optional", () => {
    const r = parseOrThrow(ContestBody, { kind: "holders_raffle", title: "  Big raffle ", budgetLamports: "300000000", winners: 3, endsAt: "2026-12-01T18:00:00Z" }, "body");
    expect(specOf(r)).toEqual({ kind: "holders_raffle", weighting: "balance", title: "Big raffle", rules: "", budgetLamports: 300_000_000n, winners: 3, splitBps: null, endsAt: new Date("2026-12-01T18:00:00Z") });
  });

  test("every shape problem at once, the 2 SOL cap and the winners range among them", () => {
    expect(problems({ kind: "lottery", weighting: "heavy", title: "", budgetLamports: "2000000001", winners: 51, splitBps: [0, 1.5], endsAt: "tomorrow", ref: "x", extra: 1 })).toEqual([
      { field: "kind", message: "must be holders_raffle or top_holders" },
      { field: "weighting", message: "must be balance or uniform" },
      { field: "title", message: "must not be empty" },
      { field: "budgetLamports", message: "must be at most 2 SOL (2000000000 lamports)" },
      { field: "winners", message: "must be from 1 to 50" },
      { field: "splitBps.0", message: "must be at least 1" },
      { field: "splitBps.1", message: "must be a whole number of basis points" },
      { field: "endsAt", message: "must be an ISO timestamp such as 2026-12-01T18:00:00Z" },
      { field: "ref", message: "must be 8-128 letters, digits, - _ . :" },
      { field: "extra", message: "is not a field of this request" },
    ]);
    expect(problems({})).toEqual([
      { field: "kind", message: "is required" },
      { field: "title", message: "is required" },
      { field: "budgetLamports", message: "is required" },
      { field: "winners", message: "is required" },
      { field: "endsAt", message: "is required" },
    ]);
    expect(problems({ kind: "top_holders", title: "t", budgetLamports: 100, winners: 0, endsAt: "2026-12-01T18:00:00Z" })).toEqual([
      { field: "budgetLamports", message: 'must be a string of lamports, for example "500000000"' },
      { field: "winners", message: "must be from 1 to 50" },
    ]);
  });

  test("the request hash ignores nothing that makes the contest and changes with each field", () => {
    const base = specHash(spec());
    expect(specHash(spec())).toBe(base);
    for (const o of [{ title: "u" }, { rules: "r" }, { winners: 4 }, { budgetLamports: 300_000_001n }, { weighting: "uniform" as const }, { splitBps: [5000, 3000, 2000] }, { endsAt: new Date(NOW.getTime() + 3600_001) }])
      expect(specHash(spec(o))).not.toBe(base);
  });
});
