/**
 * Query schemas of the Application API's public reads (valibot). Every out-of-range value
 * is reported at once in `details` (400 VALIDATION_ERROR); unknown parameters are ignored.
 */
import * as v from "valibot";
import { intInRange, cursor, kindsParam } from "../public/model";
import { issueMessage, validationError } from "../errors";

export { MintParam, TradesQuery } from "../public/model";

export const TOKEN_SORTS = ["new", "marketcap", "trending"] as const;

export const TokensQuery = v.object({
  sort: v.optional(v.picklist(TOKEN_SORTS, `must be one of ${TOKEN_SORTS.join(", ")}`), "new"),
  q: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(64, "must be at most 64 characters"))),
  limit: intInRange(1, 50, 20),
  cursor,
});

/** The spec's "Application feed kinds" (Events). */
export const FEED_KINDS = [
  "post", "lore", "poll", "image", "social_post", "decision", "launch", "trade", "buyback", "airdrop", "contest_opened",
  "contest_drawn", "contest_paid", "creator_payout", "platform_buyback", "thinking",
] as const;
/** Without `kinds`: every kind but the agent's raw thinking (the only kind the spec keeps for those who ask). */
export const DEFAULT_FEED_KINDS = FEED_KINDS.filter((k) => k !== "thinking");

export const FeedQuery = v.object({ kinds: kindsParam(FEED_KINDS), limit: intInRange(1, 50, 20), cursor });

/** `range` of the analytics overview (analytics-service.ts RANGE_HOURS). */
export const RANGES = ["24h", "7d", "30d", "all"] as const;
export const AnalyticsQuery = v.object({ range: v.optional(v.picklist(RANGES, `must be one of ${RANGES.join(", ")}`), "24h") });

/** Candle intervals and their length in seconds. */
export const INTERVALS = { "1m": 60, "5m": 300, "15m": 900, "1h": 3600, "4h": 14400, "1d": 86400 } as const;
export type Interval = keyof typeof INTERVALS;
export const MAX_CANDLES = 1000;

/** The date part names a day that exists (Date.parse turns 2026-02-30 into March 2). */
function realCalendarDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split("-").map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** An ISO 8601 date-time (a date alone is midnight UTC) between 1970 and 2100, as unix seconds. */
const LATEST = Date.UTC(2100, 0, 1);
const isoTime = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/, "must be an ISO 8601 time such as 2026-01-01T00:00:00Z"),
    v.check(realCalendarDate, "must be a real time between 1970 and 2100"),
    v.transform((s) => Date.parse(/T.*(Z|[+-]\d{2}:?\d{2})$/.test(s) || !s.includes("T") ? s : `${s}Z`)),
    v.check((ms) => Number.isFinite(ms) && ms >= 0 && ms <= LATEST, "must be a real time between 1970 and 2100"),
    v.transform((ms) => Math.floor(ms / 1000)),
  ),
);

export const CandlesQuery = v.object({
  interval: v.optional(v.picklist(Object.keys(INTERVALS) as Interval[], `must be one of ${Object.keys(INTERVALS).join(", ")}`), "1h"),
  from: isoTime,
  to: isoTime,
});

/**
 * The candles query with its window resolved: `from` and `to` (unix seconds, `to` not
 * included), both on interval boundaries. Every problem is reported at once, the window's
 * own (from after to, too many candles) with the fields'. Without `to`: up to now (to the
 * end of the interval now in progress), or 1,000 candles after `from`; without `from`:
 * 1,000 candles before `to`.
 */
export function parseCandlesQuery(query: unknown, nowSeconds: number) {
  const r = v.safeParse(CandlesQuery, query, { abortEarly: false, abortPipeEarly: true });
  const problems = r.success ? [] : r.issues.map((i) => ({ field: v.getDotPath(i) ?? "query", message: issueMessage(i) }));
  const interval = r.success ? r.output.interval : "1h";
  const step = INTERVALS[interval];
  const given = r.success ? r.output : { from: undefined, to: undefined };
  if (given.from !== undefined && given.to !== undefined) {
    if (given.from >= given.to) problems.push({ field: "from", message: "must be before to" });
    else if (candleCount(given.from, given.to, step) > MAX_CANDLES)
      problems.push({ field: "to", message: `from..to spans ${candleCount(given.from, given.to, step)} candles of ${interval}; at most ${MAX_CANDLES}: narrow it or take a longer interval` });
  }
  if (problems.length) throw validationError(problems);
  const now = Math.ceil(nowSeconds / step) * step;
  const from = given.from !== undefined ? Math.floor(given.from / step) * step : undefined;
  const to = given.to ?? (from !== undefined ? Math.min(now, from + MAX_CANDLES * step) : now);
  const start = from ?? Math.floor(to / step) * step - MAX_CANDLES * step + (to % step === 0 ? 0 : step);
  return { interval, step, from: Math.max(0, start), to };
}

/** Candles from the bucket holding `from` up to (not including) `to`. */
export const candleCount = (from: number, to: number, step: number) => Math.ceil((to - Math.floor(from / step) * step) / step);
