/**
 * The daemon surface as plain functions of (deps, args): the public profile and stdout,
 * what an operator changes (each change told on the agent's stdout, in the same
 * transaction), and the signed-in wallet's console and approvals. Answers are the spec's
 * shapes; amounts in micro-USD and lamports are decimal strings.
 */
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import type { CatalogModel } from "../../infra/config";
import type { SolPriceService } from "../../infra/sol-price";
import type { Firewall } from "../firewall/firewall";
import { ApiError, notFound } from "../errors";
import { fuelMicros, fuelOf, type FuelInputs } from "./fuel";
import { MAX_ACTIVE_DIRECTIVES, PERSONA_TEXTS, type Autonomy, type Decision, type PersonaChange } from "./model";
import { notOperator, type Authenticate } from "./operator";
import * as store from "./store";
import type { AgentRecord, DirectiveRow, ProposalRow, SpendRow, StdoutLine, StdoutRow } from "./store";

export type DaemonServiceDeps = {
  sql: Sql;
  price: SolPriceService;
  /** the selectable models (MODEL_CATALOG); the first is the default */
  models: readonly CatalogModel[];
  firewall: Firewall;
  authenticate: Authenticate;
  log: Logger;
  /** called after a change of what the ClickHouse directory mirrors (the agent's name) */
  onAgentChanged?: (mint: string) => Promise<void>;
};

/** The spec's check limit: one decision cycle asked for every 2 minutes per agent. */
export const CHECK_COOLDOWN_SECONDS = 120;
/** The newest agents of a wallet in its console. */
export const CONSOLE_MAX_AGENTS = 200;

// ---------------------------------------------------------------------------------------------
// Views

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function personaView(a: AgentRecord) {
  return {
    name: a.name ?? "",
    presence: a.presence,
    traits: Array.isArray(a.traits) ? a.traits.map(String) : [],
    ...(Object.fromEntries(PERSONA_TEXTS.map((f) => [f, a[f] ?? ""])) as Record<(typeof PERSONA_TEXTS)[number], string>),
  };
}

export const stdoutView = (r: StdoutRow) => ({ id: r.id.toString(), kind: r.kind, body: r.body, meta: r.meta, createdAt: r.created_at.toISOString() });
const directiveView = (d: DirectiveRow) => ({ id: d.id.toString(), kind: d.kind, body: d.body, createdAt: d.created_at.toISOString(), archivedAt: iso(d.archived_at) });
const spendView = (s: SpendRow) => ({ at: s.at.toISOString(), kind: s.kind, usdMicros: s.usd_micros.toString(), what: s.what });
const proposalView = (p: ProposalRow) => ({
  id: p.id.toString(), kind: p.kind, payload: p.payload, status: p.status,
  createdAt: p.created_at.toISOString(), expiresAt: p.expires_at.toISOString(), decidedAt: iso(p.decided_at),
});

async function solUsd(deps: Pick<DaemonServiceDeps, "price">): Promise<number | null> {
  return ((await deps.price.current()) ?? deps.price.lastKnown())?.usd ?? null;
}

const fuelInputs = (a: AgentRecord, usd: number | null): FuelInputs => ({
  lamports: a.lamports === null ? null : BigInt(a.lamports),
  usdcAtoms: a.usdc_atoms === null ? null : BigInt(a.usdc_atoms),
  balanceReadAt: a.balance_read_at,
  unsettledMicros: BigInt(a.unsettled_micros),
  solUsd: usd,
});

const operatorLine = (body: string, meta: Record<string, unknown>): StdoutLine => ({ kind: "action", body, meta: { source: "operator", ...meta } });

// ---------------------------------------------------------------------------------------------
// Public reads

async function publicAgent(sql: Sql, mint: string): Promise<AgentRecord> {
  const a = await store.agentRecord(sql, mint);
  if (!a) throw notFound(`no agent with mint ${mint}`);
  return a;
}

/** GET /daemons/:mint: template, model, state (and stateReason), autonomy, persona, fuel. */
export async function profile(deps: DaemonServiceDeps, mint: string) {
  const [a, usd] = await Promise.all([publicAgent(deps.sql, mint), solUsd(deps)]);
  return {
    mint: a.mint,
    template: a.template,
    model: a.model ?? deps.models[0]?.id ?? null,
    state: a.state,
    // ours: why the agent sleeps or is frozen, in words ("" when awake)
    stateReason: a.state_reason,
    autonomy: a.autonomy,
    persona: personaView(a),
    fuel: fuelOf(fuelInputs(a, usd)),
  };
}

/** GET /daemons/:mint/stdout: newest first; `nextCursor` is the last line's id while older lines may exist. */
export async function stdout(deps: Pick<DaemonServiceDeps, "sql">, mint: string, q: { limit: number; cursor?: string }) {
  await publicAgent(deps.sql, mint);
  const rows = await store.stdoutPage(deps.sql, mint, q.limit + 1, q.cursor);
  const page = rows.slice(0, q.limit);
  return { items: page.map(stdoutView), nextCursor: rows.length > q.limit ? page.at(-1)!.id.toString() : null };
}

// ---------------------------------------------------------------------------------------------
// Operator

/** The agent, when `address` launched it: 404 for an unknown or hidden agent, 403 for anyone else. The operator functions below take what it returns. */
export async function operatorAgent(deps: Pick<DaemonServiceDeps, "sql">, address: string, mint: string): Promise<AgentRecord> {
  const a = await publicAgent(deps.sql, mint);
  if (a.creator !== address) throw notOperator(mint);
  return a;
}

const blocked = (field: string, reason: string) => new ApiError(422, "FIREWALL_BLOCKED", `${field} was blocked by the safety filter: ${reason}`, { field });

/**
 * Every text the change sets, in body order, through the safety filter: 422 with the first blocked field. The filter
 * sees them as `persona.<field>` (the names its rules are scoped by: `persona.name`, `persona.*`); the answer names
 * the field as the body does (`drive`, `traits.1`), like its validation problems.
 */
function checkPersonaText(firewall: Firewall, change: PersonaChange): void {
  const fields: { field: string; text: string }[] = [];
  if (change.name) fields.push({ field: "persona.name", text: change.name });
  change.traits?.forEach((t, i) => fields.push({ field: `persona.traits.${i}`, text: t }));
  for (const f of PERSONA_TEXTS) if (change[f]) fields.push({ field: `persona.${f}`, text: change[f]! });
  const hit = firewall.check(fields);
  if (hit) throw blocked(hit.field.slice("persona.".length), hit.reason);
}

export async function putPersona(deps: DaemonServiceDeps, a: AgentRecord, change: PersonaChange) {
  const mint = a.mint;
  checkPersonaText(deps.firewall, change);
  const after = await store.updatePersona(deps.sql, mint, change, (fields) =>
    operatorLine(`The operator updated the persona: ${fields.join(", ")}.`, { change: "persona", fields }),
  );
  if (!after) throw notFound(`no agent with mint ${mint}`);
  if (change.name !== undefined && deps.onAgentChanged)
    await deps.onAgentChanged(mint).catch((err) => deps.log.error("directory refresh after a persona change failed", { mint, err: err as Error }));
  return personaView(after);
}

export async function putAutonomy(deps: DaemonServiceDeps, a: AgentRecord, autonomy: Autonomy) {
  const mint = a.mint;
  const changed = await store.setAutonomy(deps.sql, mint, autonomy, operatorLine(`The operator set autonomy to ${autonomy}.`, { change: "autonomy", autonomy }));
  if (changed === null) throw notFound(`no agent with mint ${mint}`);
  return { autonomy };
}

export async function listDirectives(deps: DaemonServiceDeps, a: AgentRecord) {
  return { items: (await store.activeDirectives(deps.sql, a.mint)).map(directiveView), nextCursor: null };
}

export async function addDirective(deps: DaemonServiceDeps, a: AgentRecord, d: { kind: string; body: string }) {
  const mint = a.mint;
  const hit = deps.firewall.check([{ field: "directive.body", text: d.body }]);
  if (hit) throw blocked("body", hit.reason);
  // the line says which kind was added, never its text: directives are the operator's, the stdout is public
  const row = await store.addDirective(deps.sql, mint, d, MAX_ACTIVE_DIRECTIVES, (id) =>
    operatorLine(`The operator added a ${d.kind} directive.`, { change: "directive.added", directiveId: id.toString(), directiveKind: d.kind }),
  );
  if (row === "full")
    throw new ApiError(409, "TOO_MANY_DIRECTIVES", `an agent has at most ${MAX_ACTIVE_DIRECTIVES} active directives; archive one first`, { max: MAX_ACTIVE_DIRECTIVES });
  return directiveView(row);
}

export async function archiveDirective(deps: DaemonServiceDeps, a: AgentRecord, id: string) {
  const mint = a.mint;
  const row = await store.archiveDirective(deps.sql, mint, id, (d) =>
    operatorLine(`The operator archived a ${d.kind} directive.`, { change: "directive.archived", directiveId: d.id.toString(), directiveKind: d.kind }),
  );
  if (!row) throw notFound(`${mint} has no directive ${id}`);
  return directiveView(row);
}

/** `week`: the spend of the last 7 × 24 hours in micro-USD (credits not counted). */
export async function spend(deps: DaemonServiceDeps, a: AgentRecord, q: { limit: number; cursor?: string }) {
  const mint = a.mint;
  const [rows, week] = await Promise.all([store.spendPage(deps.sql, mint, q.limit + 1, q.cursor), store.weekSpend(deps.sql, mint)]);
  const page = rows.slice(0, q.limit);
  return { items: page.map(spendView), week: week.toString(), nextCursor: rows.length > q.limit ? page.at(-1)!.id.toString() : null };
}

/** POST /check: refused unless the agent is awake with fuel left, and at most once every 2 minutes. */
export async function check(deps: DaemonServiceDeps, a: AgentRecord) {
  const mint = a.mint;
  if (a.state !== "awake")
    throw new ApiError(409, "AGENT_NOT_RUNNING", `the agent is ${a.state}, not awake: it runs no decision cycle now`, { state: a.state });
  // with no SOL price ever known the budget cannot be told: the cycle checks it again when it runs
  if (fuelMicros(fuelInputs(a, await solUsd(deps))) === 0n) throw new ApiError(409, "NO_FUEL", "the agent's budget is used up; it runs again once fees refill its vault");
  const r = await store.requestCheck(deps.sql, mint, a.creator, CHECK_COOLDOWN_SECONDS, operatorLine("The operator asked for a decision cycle.", { change: "check" }));
  if (!r.queued)
    throw new ApiError(429, "CHECK_TOO_SOON", `one check every ${CHECK_COOLDOWN_SECONDS / 60} minutes per agent; retry in ${r.retryAfterSeconds} s`, { retryAfterSeconds: r.retryAfterSeconds }, { "retry-after": String(r.retryAfterSeconds) });
  return { queued: true, cooldownSeconds: CHECK_COOLDOWN_SECONDS };
}

const DECISION_WORD: Record<Decision, string> = { approve: "approved", reject: "rejected", regenerate: "asked to regenerate" };

export async function decide(deps: DaemonServiceDeps, a: AgentRecord, id: string, decision: Decision) {
  const mint = a.mint;
  const r = await store.decideProposal(deps.sql, mint, id, decision, a.creator, (p) =>
    operatorLine(`The operator ${DECISION_WORD[decision]} proposal ${p.id} (${p.kind}).`, { change: `proposal.${p.status}`, proposalId: p.id.toString(), proposalKind: p.kind }),
  );
  if (r === "unknown") throw notFound(`${mint} has no proposal ${id}`);
  if (r.outcome === "expired") throw new ApiError(409, "PROPOSAL_EXPIRED", `proposal ${id} expired at ${r.proposal.expires_at.toISOString()}`, { status: "expired" });
  if (r.outcome === "already_decided") throw new ApiError(409, "PROPOSAL_DECIDED", `proposal ${id} is already ${r.proposal.status}`, { status: r.proposal.status });
  return proposalView(r.proposal);
}

// ---------------------------------------------------------------------------------------------
// Signed-in

/** GET /me/console: one item per agent the wallet launched, newest first. */
export async function consoleOf(deps: DaemonServiceDeps, address: string) {
  const agents = await store.agentsOf(deps.sql, address, CONSOLE_MAX_AGENTS);
  const mints = agents.map((a) => a.mint);
  const [waiting, lines, usd] = await Promise.all([store.waitingProposals(deps.sql, mints), store.lastLines(deps.sql, mints), solUsd(deps)]);
  return {
    items: agents.map((a) => {
      const fuel = fuelMicros(fuelInputs(a, usd));
      const line = lines.get(a.mint);
      return {
        token: { mint: a.mint, name: a.coin_name, symbol: a.symbol, imageUrl: a.image_url },
        state: a.state,
        autonomy: a.autonomy,
        fuelMicros: fuel === null ? null : fuel.toString(),
        vaultLamports: (a.lamports === null ? 0n : BigInt(a.lamports)).toString(),
        pendingApprovals: waiting.get(a.mint) ?? 0,
        // the social account connection is not built yet: no agent has one
        social: { connected: false },
        lastLine: line ? stdoutView(line) : null,
      };
    }),
  };
}

/** GET /me/approvals: agents with proposals waiting (not expired), and their total. */
export async function approvalsOf(deps: DaemonServiceDeps, address: string) {
  const agents = await store.agentsOf(deps.sql, address, CONSOLE_MAX_AGENTS);
  const waiting = await store.waitingProposals(deps.sql, agents.map((a) => a.mint));
  const items = agents.filter((a) => waiting.has(a.mint)).map((a) => ({ mint: a.mint, waiting: waiting.get(a.mint)! }));
  return { items, total: items.reduce((n, i) => n + i.waiting, 0) };
}
