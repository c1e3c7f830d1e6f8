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

const intInRange = (min: number, max: number, fallback: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, `must be an integer from ${min} to ${max}`),
      v.transform(Number),
      v.minValue(min, `must be an integer from ${min} to ${max}`),
      v.maxValue(max, `must be an integer from ${min} to ${max}`),
    ),
    String(fallback),
  );
const cursor = v.optional(v.pipe(v.string(), v.maxLength(512, "is not a cursor this API gave out")));
const base58Mint = v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "must be a base58 mint address"));

export const AgentsQuery = v.object({
  sort: v.optional(v.picklist(SORTS, `must be one of ${SORTS.join(", ")}`), "new"),
  category: v.optional(v.picklist(CATEGORIES, `must be one of ${CATEGORIES.join(", ")}`)),
  q: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(64, "must be at most 64 characters"))),
  limit: intInRange(1, 50, 20),
  cursor,
});

export const TradesQuery = v.object({ limit: intInRange(1, 100, 30), cursor });

export const ActivityQuery = v.object({
  kinds: v.optional(
    v.pipe(
      v.string(),
      v.transform((s) => s.split(",").map((k) => k.trim()).filter(Boolean)),
      v.minLength(1, "must list at least one kind"),
      v.check((ks) => ks.every((k) => (ACTIVITY_KINDS as readonly string[]).includes(k)), `must be a comma list of ${ACTIVITY_KINDS.join(", ")}`),
    ),
  ),
  limit: intInRange(1, 50, 20),
  cursor,
});

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

export function decodeCursor(list: string, raw: string | undefined, shape: ("string" | "number")[]): (string | number)[] | null {
  if (raw === undefined) return null;
  const bad = () => validationError([{ field: "cursor", message: "is not a cursor this list gave out; pass nextCursor unchanged" }]);
  let parsed: { l?: unknown; p?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  const p = parsed?.p;
  if ((parsed?.l !== listTag(list) && parsed?.l !== list) || !Array.isArray(p) || p.length !== shape.length || !p.every((x, i) => typeof x === shape[i])) throw bad();
  return p as (string | number)[];
}

export { ApiError };
