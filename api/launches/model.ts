/**
 * The Launch API's request rules (valibot): the create body with every rule of the
 * spec's table, the submit body and the Idempotency-Key header. Every problem of a
 * body is reported at once in `details` (400 VALIDATION_ERROR).
 */
import * as v from "valibot";
import { PublicKey } from "@solana/web3.js";
import { ApiError, parseOrThrow, validationError } from "../errors";

export const GOALS = ["community", "content", "trade", "predict", "reward", "stock", "gamble"] as const;
export type Goal = (typeof GOALS)[number];

/** What each goal makes of the agent: its template (the Data API's `role`) and category. */
export const GOAL_AGENT: Record<Goal, { template: string; category: string }> = {
  community: { template: "baseline", category: "community" },
  content: { template: "studio", category: "content" },
  trade: { template: "trader", category: "trading" },
  predict: { template: "forecaster", category: "predicting" },
  reward: { template: "patron", category: "rewards" },
  stock: { template: "analyst", category: "stocks" },
  gamble: { template: "gambler", category: "gambler" },
};

export const FIRST_BUY_CAP_LAMPORTS = 2_000_000_000n;
export const MAX_MARKETS = 20;

const utf8Bytes = (s: string) => Buffer.byteLength(s, "utf8");
/** Postgres text and jsonb refuse NUL and unpaired surrogates: refused here, as the field's problem, not a 500 at the write. */
export const storable = v.check((s: string) => !s.includes("\u0000") && s.isWellFormed(), "must not contain NUL or unpaired surrogate characters");
/** A trimmed string of `min`-`max` characters (code points), storable in Postgres. */
export const text = (field: string, min: number, max: number) =>
  v.pipe(
    v.string(`${field} must be a string`),
    storable,
    v.trim(),
    v.check((s) => [...s].length >= min, min === 1 ? "must not be empty" : `must be at least ${min} characters`),
    v.check((s) => [...s].length <= max, `must be at most ${max} characters`),
  );
const httpsLink = v.pipe(
  v.string("must be a string"),
  v.maxLength(200, "must be at most 200 characters"),
  v.url("must be a full https:// link"),
  v.startsWith("https://", "must be a full https:// link"),
);

const wallet = v.pipe(
  v.string("must be a wallet address"),
  v.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "must be a base58 wallet address"),
  v.check((s) => {
    try {
      return PublicKey.isOnCurve(new PublicKey(s).toBytes());
    } catch {
      return false;
    }
  }, "must be a wallet address that can sign (a point on ed25519, not a program-derived address)"),
);

const AgentPersona = v.strictObject({
    name: v.optional(text("agent.name", 1, 32)),
    presence: v.optional(v.picklist(["quiet", "influencer"], "must be quiet or influencer"), "quiet"),
    traits: v.optional(
      v.pipe(v.array(text("trait", 1, 32), "must be an array of strings"), v.maxLength(3, "at most 3 traits")),
      [],
    ),
    drive: v.optional(text("agent.drive", 1, 280)),
    motto: v.optional(text("agent.motto", 1, 140)),
});

const FirstBuy = v.strictObject({
  unit: v.literal("sol", 'must be "sol"'),
  amount: v.pipe(
    v.string("must be a string of lamports, for example \"500000000\""),
    v.regex(/^[1-9]\d{0,19}$/, "must be a positive whole number of lamports, as a string"),
  ),
});

export const CreateBody = v.strictObject({
  creator: wallet,
  name: v.pipe(text("name", 1, 32), v.check((s) => utf8Bytes(s) <= 32, "must fit the token metadata's 32 bytes in UTF-8")),
  symbol: v.pipe(
    v.string("must be a string"),
    v.trim(),
    v.regex(/^[A-Za-z0-9]{1,10}$/, "must be 1-10 letters or digits"),
    v.toUpperCase(),
  ),
  description: v.optional(text("description", 0, 500), ""),
  image: v.strictObject({ url: v.pipe(v.string("must be a string"), storable, v.minLength(1, "must not be empty"), v.maxLength(2048, "must be at most 2048 characters")) }),
  goal: v.optional(v.picklist(GOALS, `must be one of ${GOALS.join(", ")}`), "community"),
  agent: v.optional(AgentPersona),
  stock: v.optional(v.strictObject({ ticker: v.pipe(v.string("must be a string"), v.regex(/^[A-Za-z0-9.]{1,12}$/, "must be a stock ticker"), v.toUpperCase()) })),
  markets: v.optional(
    v.pipe(
      v.array(v.pipe(v.string("must be a string"), v.regex(/^0x[0-9a-fA-F]{64}$/, "must be a prediction-market condition id (0x and 64 hex digits)"), v.toLowerCase())),
      v.minLength(1, "must list at least one market"),
      v.maxLength(MAX_MARKETS, `at most ${MAX_MARKETS} markets`),
    ),
  ),
  links: v.optional(v.strictObject({ website: v.optional(httpsLink), social: v.optional(httpsLink), telegram: v.optional(httpsLink) })),
  model: v.optional(v.pipe(v.string("must be a string"), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/, "must be a model identifier (letters, digits, . _ : / -; up to 64)"))),
  firstBuy: v.optional(FirstBuy),
});
export type CreateRequest = v.InferOutput<typeof CreateBody>;

/** Rules across fields, reported with the field problems. */
function crossFieldProblems(body: CreateRequest): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  if (body.goal === "stock" && !body.stock) out.push({ field: "stock", message: "is required when goal is stock: { ticker }" });
  if (body.goal !== "stock" && body.stock) out.push({ field: "stock", message: "is only for goal stock" });
  if (body.goal === "predict" && !body.markets) out.push({ field: "markets", message: "is required when goal is predict: up to 20 condition ids" });
  if (body.goal !== "predict" && body.markets) out.push({ field: "markets", message: "is only for goal predict" });
  return out;
}

/** Parses the create body: 400 VALIDATION_ERROR listing every problem, then the first-buy rules. */
export function parseCreateBody(input: unknown): CreateRequest {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw validationError([{ field: "body", message: "must be a JSON object" }]);
  const body = parseOrThrow(CreateBody, input, "body");
  const cross = crossFieldProblems(body);
  if (cross.length) throw validationError(cross);
  if (body.firstBuy) {
    if (BigInt(body.firstBuy.amount) > FIRST_BUY_CAP_LAMPORTS)
      throw new ApiError(400, "FIRST_BUY_OVER_CAP", `a first buy is at most 2 SOL (${FIRST_BUY_CAP_LAMPORTS} lamports); asked for ${body.firstBuy.amount}`, {
        maxLamports: FIRST_BUY_CAP_LAMPORTS.toString(),
      });
    if (body.goal === "stock")
      throw new ApiError(400, "FIRST_BUY_NOT_SUPPORTED", "a coin paired with a stock trades against the stock, not SOL: launch it without firstBuy");
  }
  return body;
}

/** Every text field of a launch, in the order the safety filter reports them. */
export function textFields(body: CreateRequest): { field: string; text: string }[] {
  const out = [
    { field: "name", text: body.name },
    { field: "symbol", text: body.symbol },
    { field: "description", text: body.description },
  ];
  if (body.agent?.name) out.push({ field: "agent.name", text: body.agent.name });
  body.agent?.traits.forEach((t, i) => out.push({ field: `agent.traits.${i}`, text: t }));
  if (body.agent?.drive) out.push({ field: "agent.drive", text: body.agent.drive });
  if (body.agent?.motto) out.push({ field: "agent.motto", text: body.agent.motto });
  return out.filter((f) => f.text.length > 0);
}

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{8,128}$/;

export function idempotencyKeyOrThrow(header: string | null): string {
  if (header === null || header === "")
    throw new ApiError(400, "IDEMPOTENCY_KEY_REQUIRED", "send an Idempotency-Key header (8-128 letters, digits, - _ . :) so a retried create makes one launch");
  if (!IDEMPOTENCY_KEY.test(header))
    throw validationError([{ field: "Idempotency-Key", message: "must be 8-128 characters of letters, digits, - _ . :" }]);
  return header;
}

export const SubmitBody = v.strictObject({ signedTransaction: v.pipe(v.string("must be a base64 string"), v.minLength(1, "must not be empty"), v.maxLength(4096, "is longer than any Solana transaction")) });

export const isLaunchId = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
