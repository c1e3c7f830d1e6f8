/**
 * What the daemon surface answers (valibot): the catalog, profile, stdout lines, persona,
 * directives, spend, check, proposals, the console and approvals. The OpenAPI document
 * and the tests that check real answers read these.
 */
import * as v from "valibot";
import { Atoms, Facts, Integer, IsoTime, Mint, RowId, Url, page } from "../openapi/primitives";
import { AGENT_STATES, TEMPLATES } from "../public/responses";
import { CATEGORIES } from "../public/model";
import { GOALS } from "../launches/model";
import { AUTONOMY, DIRECTIVE_KINDS, PERSONA_TEXTS } from "./model";
import { CAPABILITIES, PRESENCE } from "./catalog";
import type { Fuel as FuelType } from "./fuel";

const Micros = v.pipe(Atoms, v.metadata({ description: "micro-USD (1e-6 USD), decimal string" }));

export const Catalog = v.object({
  templates: v.array(
    v.object({
      id: v.picklist(TEMPLATES),
      category: v.picklist(CATEGORIES),
      goal: v.picklist(GOALS),
      job: v.string(),
      capabilities: v.array(v.object({ id: v.picklist(Object.keys(CAPABILITIES) as (keyof typeof CAPABILITIES)[]), description: v.string() })),
    }),
  ),
  models: v.array(v.object({ id: v.string(), default: v.boolean(), inputUsdPerMTok: v.number(), outputUsdPerMTok: v.number() })),
  character: v.object({ presence: v.array(v.picklist(PRESENCE)), traits: v.array(v.string()), traitsMax: Integer }),
});

export const Persona = v.object({
  name: v.pipe(v.string(), v.metadata({ description: "\"\" when the operator gave none (the coin's name is shown)" })),
  presence: v.picklist(PRESENCE),
  traits: v.array(v.string()),
  ...(Object.fromEntries(PERSONA_TEXTS.map((f) => [f, v.string()])) as Record<(typeof PERSONA_TEXTS)[number], v.StringSchema<undefined>>),
});

export const Fuel = v.object({
  usdMicros: v.pipe(v.nullable(Micros), v.metadata({ description: "the budget, never below 0; null when no SOL price is known" })),
  usd: v.nullable(v.number()),
  vaultLamports: Atoms,
  vaultUsdcAtoms: Atoms,
  unsettledSpendMicros: Micros,
  solUsd: v.nullable(v.number()),
  balanceReadAt: v.nullable(IsoTime),
  wakeUsd: v.pipe(v.number(), v.metadata({ description: "the budget an asleep agent needs to wake, USD" })),
});

export const DaemonProfile = v.object({
  mint: Mint,
  template: v.picklist(TEMPLATES),
  model: v.nullable(v.string()),
  state: v.picklist(AGENT_STATES),
  stateReason: v.pipe(v.string(), v.metadata({ description: "why the agent sleeps or is frozen, in words (\"\" when awake)" })),
  autonomy: v.picklist(AUTONOMY),
  persona: Persona,
  fuel: Fuel,
});

export const StdoutLine = v.object({
  id: RowId,
  kind: v.picklist(["thinking", "decision", "action", "error"]),
  body: v.string(),
  meta: Facts,
  createdAt: IsoTime,
});

export const StdoutPage = page(StdoutLine);

export const Directive = v.object({
  id: RowId,
  kind: v.picklist(DIRECTIVE_KINDS),
  body: v.string(),
  createdAt: IsoTime,
  archivedAt: v.nullable(IsoTime),
});

export const DirectiveList = page(Directive);

export const SpendPage = v.object({
  items: v.array(v.object({ at: IsoTime, kind: v.picklist(["credit", "spend"]), usdMicros: Micros, what: v.string() })),
  week: v.pipe(Micros, v.metadata({ description: "the spend of the last 7 × 24 hours (credits not counted)" })),
  nextCursor: v.nullable(RowId),
});

export const AutonomyAnswer = v.object({ autonomy: v.picklist(AUTONOMY) });

export const CheckQueued = v.object({ queued: v.literal(true), cooldownSeconds: Integer });

export const Proposal = v.object({
  id: RowId,
  kind: v.string(),
  payload: v.unknown(),
  status: v.pipe(v.string(), v.metadata({ description: "waiting, approved, rejected, regenerating or expired" })),
  createdAt: IsoTime,
  expiresAt: IsoTime,
  decidedAt: v.nullable(IsoTime),
});

export const Console = v.object({
  items: v.array(
    v.object({
      token: v.object({ mint: Mint, name: v.string(), symbol: v.string(), imageUrl: Url }),
      state: v.picklist(AGENT_STATES),
      autonomy: v.picklist(AUTONOMY),
      fuelMicros: v.nullable(Micros),
      vaultLamports: Atoms,
      pendingApprovals: Integer,
      social: v.pipe(v.object({ connected: v.boolean() }), v.metadata({ description: "the social account connection (not built yet: `{ connected: false }`)" })),
      lastLine: v.nullable(StdoutLine),
    }),
  ),
});

export const Approvals = v.object({ items: v.array(v.object({ mint: Mint, waiting: Integer })), total: Integer });

({}) as FuelType satisfies v.InferOutput<typeof Fuel>;
