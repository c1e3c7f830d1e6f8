/**
 * The tools an agent's model may call, per its template's capabilities and presence, and
 * the checks of each call (pure): arguments parsed as JSON and validated, amounts within
 * the spec's limits (airdrop ≤ 2 SOL, contest ≤ 2 SOL with 1-50 winners, each prize ≤ 0.1
 * SOL, ending 1 minute to 30 days ahead; buyback ≤ 0.5 SOL). A call that fails a check
 * becomes an error line, never an action.
 */
import * as v from "valibot";
import type { Capability } from "../../api/daemons/catalog";
import { CONTEST_LIMITS, solText } from "../../api/contests/model";
import { AIRDROP_MAX_LAMPORTS, BUYBACK_MAX_LAMPORTS } from "../../api/treasury/limits";
import type { ChatTool, ToolCall } from "./provider";

const LAMPORTS_PER_SOL = 1_000_000_000n;
/** The spec's limits, read from where the routes read them (api/treasury/limits.ts, api/contests/model.ts). */
export const LIMITS = {
  airdropLamports: AIRDROP_MAX_LAMPORTS,
  contestLamports: CONTEST_LIMITS.budgetLamports,
  prizeLamports: CONTEST_LIMITS.prizeLamports,
  buybackLamports: BUYBACK_MAX_LAMPORTS,
  winners: CONTEST_LIMITS.winners,
  contestMinutes: { min: CONTEST_LIMITS.endsAhead.minMs / 60_000, max: CONTEST_LIMITS.endsAhead.maxMs / 60_000 },
} as const;

export type Intent =
  | { tool: "post"; text: string }
  | { tool: "lore"; text: string }
  | { tool: "poll"; question: string; options: string[] }
  | { tool: "decision"; summary: string; reason: string }
  | { tool: "propose_airdrop"; lamports: bigint; holders: number; note: string }
  | { tool: "propose_contest"; lamports: bigint; winners: number; endsInMinutes: number; note: string }
  | { tool: "propose_buyback"; lamports: bigint; note: string };
export type ToolName = Intent["tool"];

const str = (min: number, max: number) => v.pipe(v.string("must be a string"), v.trim(), v.minLength(min, `must be at least ${min} characters`), v.maxLength(max, `must be at most ${max} characters`));
const int = (min: number, max: number) => v.pipe(v.number("must be a number"), v.integer("must be an integer"), v.minValue(min, `must be at least ${min}`), v.maxValue(max, `must be at most ${max}`));
/** SOL as a decimal string or number with at most 9 decimals, to lamports. */
const sol = v.pipe(
  v.union([v.string(), v.number()], "must be an amount of SOL"),
  v.transform((x) => String(x)),
  v.regex(/^\d{1,6}(\.\d{1,9})?$/, "must be an amount of SOL with at most 9 decimals"),
  v.transform((s) => {
    const [whole, frac = ""] = s.split(".");
    return BigInt(whole!) * LAMPORTS_PER_SOL + BigInt(frac.padEnd(9, "0"));
  }),
  v.check((l) => l > 0n, "must be more than 0"),
);
const note = v.optional(str(0, 280), "");

const SCHEMAS = {
  post: v.strictObject({ text: str(1, 280) }),
  lore: v.strictObject({ text: str(1, 1000) }),
  poll: v.strictObject({ question: str(1, 140), options: v.pipe(v.array(str(1, 40), "must be an array of strings"), v.minLength(2, "needs 2 to 4 options"), v.maxLength(4, "needs 2 to 4 options")) }),
  decision: v.strictObject({ summary: str(1, 140), reason: str(1, 500) }),
  propose_airdrop: v.strictObject({ amountSol: sol, holders: int(1, 1000), note }),
  propose_contest: v.strictObject({ budgetSol: sol, winners: int(LIMITS.winners.min, LIMITS.winners.max), endsInMinutes: int(LIMITS.contestMinutes.min, LIMITS.contestMinutes.max), note }),
  propose_buyback: v.strictObject({ amountSol: sol, note }),
} as const;

const DEFINITIONS: Record<ToolName, { description: string; parameters: Record<string, unknown> }> = {
  post: { description: "Publish a short post to the coin's feed.", parameters: obj({ text: { type: "string", maxLength: 280 } }, ["text"]) },
  lore: { description: "Add a piece of the coin's lore to its feed.", parameters: obj({ text: { type: "string", maxLength: 1000 } }, ["text"]) },
  poll: { description: "Ask holders a question with 2 to 4 options.", parameters: obj({ question: { type: "string", maxLength: 140 }, options: { type: "array", items: { type: "string", maxLength: 40 }, minItems: 2, maxItems: 4 } }, ["question", "options"]) },
  decision: { description: "Publish a decision and its reason.", parameters: obj({ summary: { type: "string", maxLength: 140 }, reason: { type: "string", maxLength: 500 } }, ["summary", "reason"]) },
  propose_airdrop: { description: "Propose an airdrop of SOL from the vault's claimed fees to the top holders (at most 2 SOL).", parameters: obj({ amountSol: { type: "string" }, holders: { type: "integer", minimum: 1, maximum: 1000 }, note: { type: "string", maxLength: 280 } }, ["amountSol", "holders"]) },
  propose_contest: { description: "Propose a holder contest (budget at most 2 SOL, 1-50 winners, each prize at most 0.1 SOL, ending 1 minute to 30 days ahead).", parameters: obj({ budgetSol: { type: "string" }, winners: { type: "integer", minimum: 1, maximum: 50 }, endsInMinutes: { type: "integer", minimum: 1, maximum: 43200 }, note: { type: "string", maxLength: 280 } }, ["budgetSol", "winners", "endsInMinutes"]) },
  propose_buyback: { description: "Propose buying back and burning the coin with the vault's claimed fees (at most 0.5 SOL).", parameters: obj({ amountSol: { type: "string" }, note: { type: "string", maxLength: 280 } }, ["amountSol"]) },
};
function obj(properties: Record<string, unknown>, required: string[]) {
  return { type: "object", properties, required, additionalProperties: false };
}

/** Speech (published after the firewall) needs a public presence; the rest need their capability. */
const NEEDS: Record<ToolName, { capability: Capability; influencer?: true }> = {
  post: { capability: "feed.post", influencer: true },
  lore: { capability: "feed.lore", influencer: true },
  poll: { capability: "feed.poll", influencer: true },
  decision: { capability: "feed.decision" },
  propose_airdrop: { capability: "reward.airdrop" },
  propose_contest: { capability: "program.contest" },
  propose_buyback: { capability: "treasury.buyback" },
};

/** The tools of an agent: quiet agents work behind the scenes (no posts, lore or polls). */
export function toolsFor(capabilities: readonly Capability[], presence: string): ToolName[] {
  return (Object.keys(NEEDS) as ToolName[]).filter((t) => capabilities.includes(NEEDS[t].capability) && (!NEEDS[t].influencer || presence === "influencer"));
}

export function toolDefinitions(names: readonly ToolName[]): ChatTool[] {
  return names.map((name) => ({ type: "function", function: { name, description: DEFINITIONS[name].description, parameters: DEFINITIONS[name].parameters } }));
}

/** A tool call checked: the intent, or every problem in words. */
export function parseToolCall(call: ToolCall, allowed: readonly ToolName[]): { ok: true; intent: Intent } | { ok: false; problem: string } {
  if (!(allowed as readonly string[]).includes(call.name)) return { ok: false, problem: `"${call.name.slice(0, 64)}" is not one of this agent's tools` };
  let args: unknown;
  try {
    args = JSON.parse(call.arguments || "{}");
  } catch {
    return { ok: false, problem: "its arguments are not JSON" };
  }
  const name = call.name as ToolName;
  const r = v.safeParse(SCHEMAS[name], args);
  if (!r.success) return { ok: false, problem: r.issues.map((i) => `${v.getDotPath(i) ?? "arguments"}: ${i.message}`).join("; ") };
  // each case reads only what its own schema gave
  const o = r.output as unknown as { text: string; question: string; options: string[]; summary: string; reason: string; amountSol: bigint; budgetSol: bigint; holders: number; winners: number; endsInMinutes: number; note: string };
  switch (name) {
    case "post":
    case "lore":
      return { ok: true, intent: { tool: name, text: o.text } };
    case "poll":
      return { ok: true, intent: { tool: name, question: o.question, options: o.options } };
    case "decision":
      return { ok: true, intent: { tool: name, summary: o.summary, reason: o.reason } };
    case "propose_airdrop": {
      const lamports = o.amountSol;
      if (lamports > LIMITS.airdropLamports) return { ok: false, problem: "amountSol: an airdrop is at most 2 SOL" };
      return { ok: true, intent: { tool: name, lamports, holders: o.holders, note: o.note } };
    }
    case "propose_contest": {
      const lamports = o.budgetSol;
      if (lamports > LIMITS.contestLamports) return { ok: false, problem: "budgetSol: a contest's budget is at most 2 SOL" };
      if (lamports > LIMITS.prizeLamports * BigInt(o.winners)) return { ok: false, problem: "budgetSol: each prize is at most 0.1 SOL" };
      return { ok: true, intent: { tool: name, lamports, winners: o.winners, endsInMinutes: o.endsInMinutes, note: o.note } };
    }
    case "propose_buyback": {
      const lamports = o.amountSol;
      if (lamports > LIMITS.buybackLamports) return { ok: false, problem: "amountSol: a buyback is at most 0.5 SOL" };
      return { ok: true, intent: { tool: name, lamports, note: o.note } };
    }
  }
}

export { solText };
