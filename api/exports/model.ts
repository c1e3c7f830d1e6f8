/**
 * The trade export's query: which coin, which range, which format. Every problem is
 * reported at once (400 VALIDATION_ERROR, one entry per field in `details`).
 */
import * as v from "valibot";
import { validationError } from "../errors";

export const EXPORT_FORMATS = ["csv", "ndjson", "parquet"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A range end: a slot (inclusive at both ends) or a time in ms (`from` inclusive, `to` exclusive, as candles). */
export type RangeEnd = { slot: bigint } | { ms: number };

export type ExportQuery = { mint: string | null; from: RangeEnd | null; to: RangeEnd | null; format: ExportFormat };

const U64_MAX = 2n ** 64n - 1n;
const BASE58_MINT = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
// a calendar date, optionally a time with seconds, fractions and a zone (Z or ±hh:mm); a bare date or a time without a zone is UTC
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

/** One range end from the query: digits are a slot, anything else must be an ISO 8601 time. */
export function parseRangeEnd(raw: string): RangeEnd | string {
  if (/^\d+$/.test(raw)) {
    if (raw.length > 20 || BigInt(raw) > U64_MAX) return "must be a slot (0 to 2^64-1) or an ISO 8601 time";
    return { slot: BigInt(raw) };
  }
  if (!ISO_TIME.test(raw)) return "must be a slot number or an ISO 8601 time such as 2026-01-01T00:00:00Z";
  const [y, m, d] = raw.slice(0, 10).split("-").map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  // Date.parse rolls 2026-02-30 over into March: the calendar date must be one
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return "is not a valid time (no such date)";
  const zoned = /T.*(Z|[+-]\d{2}:\d{2})$/.test(raw) ? raw : raw.includes("T") ? raw + "Z" : raw + "T00:00:00Z";
  const ms = Date.parse(zoned);
  if (!Number.isFinite(ms) || ms < 0) return "is not a valid time (from 1970 on)";
  return { ms };
}

const rangeEnd = (name: "from" | "to") =>
  v.optional(
    v.pipe(
      v.string(),
      v.metadata({ description: `a slot (digits, inclusive) or an ISO 8601 time (${name === "from" ? "inclusive" : "exclusive"}; UTC unless it names a zone)`, examples: [name === "from" ? "2026-01-01T00:00:00Z" : "312000000"] }),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const end = parseRangeEnd(dataset.value);
        if (typeof end !== "string") return end;
        addIssue({ message: end });
        return NEVER;
      }),
    ),
  );

/** The query's fields (an empty value is no value); the range's own rules are parseExportQuery's. */
export const ExportQuerySchema = v.object({
  mint: v.optional(v.pipe(v.string(), v.regex(BASE58_MINT, "must be a base58 mint address"), v.metadata({ description: "one coin; without it every public platform coin" }))),
  format: v.optional(v.picklist(EXPORT_FORMATS, `must be one of ${EXPORT_FORMATS.join(", ")}`), "csv"),
  from: rangeEnd("from"),
  to: rangeEnd("to"),
});

/** The query of GET /v1/public/exports/trades; unknown parameters are ignored, as everywhere in the Data API. */
export function parseExportQuery(query: Record<string, string | undefined>): ExportQuery {
  const given = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined && value !== ""));
  const r = v.safeParse(ExportQuerySchema, given, { abortEarly: false });
  const problems = r.success ? [] : r.issues.map((i) => ({ field: v.getDotPath(i) ?? "query", message: i.message }));
  const from = r.success ? (r.output.from ?? null) : null;
  const to = r.success ? (r.output.to ?? null) : null;
  if (from && to) {
    if ("slot" in from && "slot" in to && from.slot > to.slot) problems.push({ field: "from", message: "must not be after to" });
    if ("ms" in from && "ms" in to && from.ms >= to.ms) problems.push({ field: "from", message: "must be before to (a time range excludes to)" });
  }
  if (!r.success || problems.length) throw validationError(problems);
  return { mint: r.output.mint ?? null, from, to, format: r.output.format };
}

/** Text of a range end for a file name: the slot, or the time as 20260101T000000Z. */
export function rangeEndLabel(end: RangeEnd): string {
  return "slot" in end ? String(end.slot) : new Date(end.ms).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}
