/**
 * Contest requests (valibot) and their limits, the spec's: budget at most 2 SOL, 1-50 winners,
 * `splitBps` summing to 10,000 (an even split when left out), `endsAt` 1 minute to 30 days
 * ahead, every prize between the minimum payout and 0.1 SOL. Shape problems and limit problems
 * are reported together in one 400 VALIDATION_ERROR. Prizes are exact lamports (`prizesOf`).
 */
import { createHash } from "node:crypto";
import * as v from "valibot";
import { text } from "../launches/model";
import { IDEMPOTENCY_KEY } from "../launches/model";
import { intInRange } from "../public/model";
import { MIN_PAYOUT_LAMPORTS } from "../treasury/limits";

const LAMPORTS_PER_SOL = 1_000_000_000n;

export const CONTEST_KINDS = ["holders_raffle", "top_holders"] as const;
export const WEIGHTINGS = ["balance", "uniform"] as const;
export type ContestKind = (typeof CONTEST_KINDS)[number];
export type Weighting = (typeof WEIGHTINGS)[number];

/** The minimum payout every treasury action shares (api/treasury/limits.ts: the rent-exempt minimum of an empty account). */
export { MIN_PAYOUT_LAMPORTS };

export const CONTEST_LIMITS = {
  budgetLamports: 2n * LAMPORTS_PER_SOL,
  prizeLamports: LAMPORTS_PER_SOL / 10n,
  winners: { min: 1, max: 50 },
  endsAhead: { minMs: 60_000, maxMs: 30 * 24 * 3600_000 },
  titleChars: 80,
  rulesChars: 2000,
} as const;

const BPS_TOTAL = 10_000;

export const ContestBody = v.strictObject({
  kind: v.picklist(CONTEST_KINDS, `must be ${CONTEST_KINDS.join(" or ")}`),
  weighting: v.optional(v.picklist(WEIGHTINGS, `must be ${WEIGHTINGS.join(" or ")}`)),
  title: text("title", 1, CONTEST_LIMITS.titleChars),
  rules: v.optional(text("rules", 0, CONTEST_LIMITS.rulesChars), ""),
  budgetLamports: v.pipe(
    v.string('must be a string of lamports, for example "500000000"'),
    v.regex(/^[1-9]\d{0,18}$/, "must be a positive whole number of lamports, as a string"),
    v.transform((s) => BigInt(s)),
    v.check((l) => l <= CONTEST_LIMITS.budgetLamports, `must be at most 2 SOL (${CONTEST_LIMITS.budgetLamports} lamports)`),
  ),
  winners: v.pipe(
    v.number("must be a whole number"),
    v.integer("must be a whole number"),
    v.minValue(CONTEST_LIMITS.winners.min, `must be from ${CONTEST_LIMITS.winners.min} to ${CONTEST_LIMITS.winners.max}`),
    v.maxValue(CONTEST_LIMITS.winners.max, `must be from ${CONTEST_LIMITS.winners.min} to ${CONTEST_LIMITS.winners.max}`),
  ),
  splitBps: v.optional(
    v.array(
      v.pipe(v.number("must be a whole number of basis points"), v.integer("must be a whole number of basis points"), v.minValue(1, "must be at least 1"), v.maxValue(BPS_TOTAL, `must be at most ${BPS_TOTAL}`)),
      "must be an array of basis points, one per winner",
    ),
  ),
  endsAt: v.pipe(v.string("must be an ISO timestamp"), v.isoTimestamp("must be an ISO timestamp such as 2026-12-01T18:00:00Z"), v.transform((s) => new Date(s))),
  ref: v.optional(v.pipe(v.string("must be a string"), v.regex(IDEMPOTENCY_KEY, "must be 8-128 letters, digits, - _ . :"))),
});
export type ContestRequest = v.InferOutput<typeof ContestBody>;

/** A request with its defaults: what a contest is made of, and what a repeated `ref` is compared on. */
export type ContestSpec = {
  kind: ContestKind;
  weighting: Weighting;
  title: string;
  rules: string;
  budgetLamports: bigint;
  winners: number;
  splitBps: number[] | null;
  endsAt: Date;
};

export const specOf = (r: ContestRequest): ContestSpec => ({
  kind: r.kind,
  weighting: r.weighting ?? "balance",
  title: r.title,
  rules: r.rules,
  budgetLamports: r.budgetLamports,
  winners: r.winners,
  splitBps: r.splitBps ?? null,
  endsAt: r.endsAt,
});

/** SHA-256 of the spec's canonical JSON: a `ref` repeated with another request is told apart. */
export function specHash(s: ContestSpec): string {
  const canonical = JSON.stringify([s.kind, s.weighting, s.title, s.rules, s.budgetLamports.toString(), s.winners, s.splitBps, s.endsAt.toISOString()]);
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * Prize of each rank, in lamports, summing exactly to the budget: floor(budget × splitBps[i] / 10,000),
 * or floor(budget / winners) for the even split; the lamports the floors leave (fewer than there are
 * winners) go one each to the first ranks, in draw order (prize 0 first).
 */
export function prizesOf(budget: bigint, winners: number, splitBps: readonly number[] | null): bigint[] {
  const base = Array.from({ length: winners }, (_, i) => (splitBps ? (budget * BigInt(splitBps[i]!)) / BigInt(BPS_TOTAL) : budget / BigInt(winners)));
  let left = budget - base.reduce((s, p) => s + p, 0n);
  return base.map((p) => (left-- > 0n ? p + 1n : p));
}

type Problem = { field: string; message: string };
/** SOL from lamports, without trailing zeros ("0.1", "2"). */
export function solText(lamports: bigint): string {
  const whole = lamports / LAMPORTS_PER_SOL;
  const frac = (lamports % LAMPORTS_PER_SOL).toString().padStart(9, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}
const sol = (l: bigint) => `${solText(l)} SOL`;

/** The rules across fields (the time aside): weighting with the kind, the split, every prize. */
export function limitProblems(s: ContestSpec): Problem[] {
  const out: Problem[] = [];
  if (s.kind === "top_holders" && s.weighting !== "balance") out.push({ field: "weighting", message: "top_holders ranks by balance; weighting applies to holders_raffle only" });
  if (s.splitBps) {
    const split: Problem[] = [];
    if (s.splitBps.length !== s.winners) split.push({ field: "splitBps", message: `must have one entry per winner (${s.winners}), has ${s.splitBps.length}` });
    const total = s.splitBps.reduce((a, b) => a + b, 0);
    if (total !== BPS_TOTAL) split.push({ field: "splitBps", message: `must sum to ${BPS_TOTAL}, sums to ${total}` });
    // no prizes to tell of without a valid split
    if (split.length) return [...out, ...split];
  }
  const range = `every prize is between the minimum payout of ${MIN_PAYOUT_LAMPORTS} lamports and ${sol(CONTEST_LIMITS.prizeLamports)} (${CONTEST_LIMITS.prizeLamports} lamports)`;
  const prizes = prizesOf(s.budgetLamports, s.winners, s.splitBps);
  const outOfRange = (p: bigint) => p < MIN_PAYOUT_LAMPORTS || p > CONTEST_LIMITS.prizeLamports;
  if (s.splitBps) {
    prizes.forEach((p, i) => outOfRange(p) && out.push({ field: `splitBps.${i}`, message: `prize ${i} would be ${p} lamports; ${range}` }));
  } else if (prizes.some(outOfRange)) {
    out.push({ field: "budgetLamports", message: `an even split gives prizes of ${prizes.at(-1)}${prizes[0] !== prizes.at(-1) ? `-${prizes[0]}` : ""} lamports; ${range}` });
  }
  return out;
}

/** `endsAt` from 1 minute to 30 days after `now`. */
export function endsAtProblems(endsAt: Date, now: Date): Problem[] {
  const ahead = endsAt.getTime() - now.getTime();
  if (ahead < CONTEST_LIMITS.endsAhead.minMs || ahead > CONTEST_LIMITS.endsAhead.maxMs)
    return [{ field: "endsAt", message: `must be from 1 minute to 30 days ahead (now is ${now.toISOString()})` }];
  return [];
}

export const ContestListQuery = v.object({
  limit: intInRange(1, 50, 20),
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d{0,18}$/, "must be nextCursor of the page before"))),
});
