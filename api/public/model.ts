/**
 * Query schemas of the Data API (valibot) and the opaque cursor format.
 */
import { createHash } from "node:crypto";
import * as v from "valibot";
import { validationError, ApiError } from "../errors";

export const CATEGORIES = ["community", "trading", "predicting", "content", "rewards", "stocks", "gambler"] as const;
export const SORTS = ["new", "marketcap", "trending", "volume"] as const;
export const ACTIVITY_KINDS = [
  "post", "lore", "poll", "image", "video", "social_post", "decision", "launch", "buyback", "airdrop", "contest_opened",
  "contest_drawn", "contest_paid", "forecast", "forecast_resolved", "trade_open", "trade_close", "creator_payout",
  "platform_buyback", "analysis", "earnings_call", "earnings_resolved", "gacha_pull", "trade", "thinking",
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
/** Without `kinds`: everything but trades and the agent's raw thinking. */
export const DEFAULT_ACTIVITY_KINDS = ACTIVITY_KINDS.filter((k) => k !== "trade" && k !== "thinking");

export const intInRange = (min: number, max: number, fallback: number) =>
  v.optional(
    v.pipe(
      v.string(),
      // what the OpenAPI document says of it: an integer, as the text of a query parameter
      v.metadata({ type: "integer", minimum: min, maximum: max }),
      v.regex(/^\d+$/, `must be an integer from ${min} to ${max}`),
      v.transform(Number),
      v.minValue(min, `must be an integer from ${min} to ${max}`),
      v.maxValue(max, `must be an integer from ${min} to ${max}`),
    ),
    String(fallback),
  );
export const cursor = v.optional(v.pipe(v.string(), v.maxLength(512, "is not a cursor this API gave out")));
export const base58Mint = v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "must be a base58 mint address"));

export const AgentsQuery = v.object({
  sort: v.optional(v.picklist(SORTS, `must be one of ${SORTS.join(", ")}`), "new"),
  category: v.optional(v.picklist(CATEGORIES, `must be one of ${CATEGORIES.join(", ")}`)),
  q: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(64, "must be at most 64 characters"))),
  limit: intInRange(1, 50, 20),
  cursor,
});

export const TradesQuery = v.object({ limit: intInRange(1, 100, 30), cursor });

/** `kinds`: a comma list of `allowed`, read as one order without repeats (the same feed is one cache entry whatever order it was asked in). */
export const kindsParam = (allowed: readonly string[]) =>
  v.optional(
    v.pipe(
      v.string(),
      // in the OpenAPI document: an array sent as one comma list (kinds=post,trade)
      v.metadata({ type: "array", items: { type: "string", enum: allowed }, minItems: 1, description: `a comma list of ${allowed.join(", ")}` }),
      v.transform((s) => s.split(",").map((k) => k.trim()).filter(Boolean)),
      v.minLength(1, "must list at least one kind"),
      v.check((ks) => ks.every((k) => allowed.includes(k)), `must be a comma list of ${allowed.join(", ")}`),
      v.transform((ks) => [...new Set(ks)].sort()),
    ),
  );

export const ActivityQuery = v.object({ kinds: kindsParam(ACTIVITY_KINDS), limit: intInRange(1, 50, 20), cursor });

export const MintParam = v.object({ mint: base58Mint });

export { parseOrThrow } from "../errors";

/**
 * Opaque cursors: base64url JSON bound to the list they came from. A cursor names its
 * list by a short hash of the list's key (e.g. an activity feed's mint and kinds), so a
 * long `kinds` list does not push it past the 512 characters the API accepts; cursors
 * made before carried the key itself and are still read.
 */
export function encodeCursor(list: string, position: (string | number)[]): string {
  return Buffer.from(JSON.stringify({ l: listTag(list), p: position })).toString("base64url");
}

const listTag = (list: string) => createHash("sha256").update(list).digest("base64url").slice(0, 16);

/**
 * What a cursor of each list holds, checked in full before it reaches a query: a cursor is
 * client input, and a position that is not one the list could have given (a word where a
 * slot goes, an index past UInt16) is a 400, never an engine error.
 */
const digits = (max: bigint) => v.pipe(v.string(), v.check((s) => /^\d{1,39}$/.test(s) && BigInt(s) <= max));
const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const U64_MAX = 2n ** 64n - 1n;
export const CURSOR_POSITIONS = {
  /** sort value (lamports, atoms or ms: non-negative integers), then the mint */
  agents: v.tuple([digits(2n ** 128n - 1n), base58Mint]),
  /** slot, signature, instruction index, inner index (-1 = outer) */
  trades: v.tuple([digits(U64_MAX), v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{32,88}$/)), int(0, 65535), int(-1, 32767)]),
  /** time in ms, then the item id */
  activity: v.tuple([int(0, Number.MAX_SAFE_INTEGER), v.pipe(v.string(), v.maxLength(256))]),
};

export function decodeCursor<S extends v.GenericSchema<unknown, unknown[]>>(list: string, raw: string | undefined, position: S): v.InferOutput<S> | null {
  if (raw === undefined) return null;
  const bad = () => validationError([{ field: "cursor", message: "is not a cursor this list gave out; pass nextCursor unchanged" }]);
  let parsed: { l?: unknown; p?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (typeof parsed !== "object" || parsed === null || (parsed.l !== listTag(list) && parsed.l !== list)) throw bad();
  const p = v.safeParse(position, parsed.p);
  if (!p.success) throw bad();
  return p.output;
}

export { ApiError };
