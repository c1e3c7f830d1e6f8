/**
 * Request rules of the daemon surface (valibot): the persona, autonomy, directive and
 * decision bodies, the stdout and spend queries, path ids. Every problem is reported at
 * once in `details` (400 VALIDATION_ERROR); a field a body does not know is one of them.
 */
import * as v from "valibot";
import { text } from "../launches/model";
import { base58Mint, intInRange } from "../public/model";
import { parseOrThrow, validationError } from "../errors";
import { PRESENCE, TRAITS_MAX } from "./catalog";

export { MintParam } from "../public/model";

/** Longest persona texts, in characters. drive and motto are the spec's; the rest are ours. */
export const PERSONA_LIMITS = { name: 32, trait: 32, drive: 280, motto: 140, identity: 1000, voice: 500, lore: 2000, rules: 1000 } as const;
export const PERSONA_TEXTS = ["drive", "motto", "identity", "voice", "lore", "rules"] as const;
export type PersonaText = (typeof PERSONA_TEXTS)[number];

/** A text that may be cleared: null or "" (after trimming) clear it. */
const clearable = (field: string, max: number) => v.optional(v.nullable(v.pipe(text(field, 0, max), v.transform((s) => (s === "" ? null : s)))));

/**
 * PUT /persona: the fields given replace the stored ones, fields left out keep theirs.
 * `name` null or "" goes back to the coin's name; `traits` replaces the whole list.
 */
export const PersonaBody = v.strictObject({
  name: clearable("name", PERSONA_LIMITS.name),
  presence: v.optional(v.picklist(PRESENCE, `must be ${PRESENCE.join(" or ")}`)),
  traits: v.optional(
    v.pipe(
      v.array(text("trait", 1, PERSONA_LIMITS.trait), "must be an array of strings"),
      v.maxLength(TRAITS_MAX, `at most ${TRAITS_MAX} traits`),
      v.transform((ts) => [...new Set(ts)]),
    ),
  ),
  ...(Object.fromEntries(PERSONA_TEXTS.map((f) => [f, clearable(f, PERSONA_LIMITS[f])])) as Record<PersonaText, ReturnType<typeof clearable>>),
});
export type PersonaChange = v.InferOutput<typeof PersonaBody>;

export const AUTONOMY = ["supervised", "autonomous"] as const;
export type Autonomy = (typeof AUTONOMY)[number];
export const AutonomyBody = v.strictObject({ autonomy: v.picklist(AUTONOMY, `must be ${AUTONOMY.join(" or ")}`) });

export const DIRECTIVE_KINDS = ["goal", "rule", "style", "note"] as const;
export const DIRECTIVE_MAX_CHARS = 500;
/** Active directives an agent may have at once (each one is in every prompt of the agent). */
export const MAX_ACTIVE_DIRECTIVES = 50;
export const DirectiveBody = v.strictObject({
  kind: v.picklist(DIRECTIVE_KINDS, `must be one of ${DIRECTIVE_KINDS.join(", ")}`),
  body: text("body", 1, DIRECTIVE_MAX_CHARS),
});

export const DECISIONS = ["approve", "reject", "regenerate"] as const;
export type Decision = (typeof DECISIONS)[number];
export const DecisionBody = v.strictObject({ decision: v.picklist(DECISIONS, `must be one of ${DECISIONS.join(", ")}`) });

const INT8_MAX = 2n ** 63n - 1n;
/** A row id (bigserial) as it appears in paths and cursors: 1 to 2^63-1, decimal. */
const rowId = (message: string) => v.pipe(v.string(), v.check((s) => /^[1-9]\d{0,18}$/.test(s) && BigInt(s) <= INT8_MAX, message));

/** `cursor` is the id of the last line of the page before (the spec's "last id"). */
export const StdoutQuery = v.object({
  limit: intInRange(1, 100, 50),
  cursor: v.optional(rowId("must be the id of a line (nextCursor of the page before)")),
});
export const SpendQuery = v.object({
  limit: intInRange(1, 100, 50),
  cursor: v.optional(rowId("must be nextCursor of the page before")),
});

/** A path naming one record of an agent: both problems reported together. */
export const MintIdParams = v.object({ mint: base58Mint, id: rowId("must be an id this API gave out") });

/** A JSON body that must be an object; every problem of it in one 400. */
export function parseBody<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw validationError([{ field: "body", message: "must be a JSON object" }]);
  return parseOrThrow(schema, input, "body");
}
