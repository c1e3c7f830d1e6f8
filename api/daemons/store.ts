/**
 * Every SQL of the daemon surface: the agent's persona and autonomy (columns of `agents`),
 * directives, stdout, spend, proposals and check requests (sql/postgres/0010_daemons.sql).
 * The runtime writes through the same functions (appendStdout, recordSpend, createProposal,
 * takeQueuedCheck). Changes an operator makes and the stdout line telling of them are
 * written in one transaction.
 */
import type { Sql } from "../../infra/postgres";
import { LOCKS } from "../../infra/advisory-lock";
import type { Autonomy, Decision, PersonaChange, PersonaText } from "./model";
import { PERSONA_TEXTS } from "./model";

/** A transaction, typed as the pool's Sql (postgres.js types them apart; they take the same queries). */
export const inTx = <T>(sql: Sql, work: (tx: Sql) => Promise<T>): Promise<T> => sql.begin((t) => work(t as unknown as Sql)) as Promise<T>;

export type AgentRecord = {
  mint: string;
  creator: string;
  state: string;
  /** why the runtime put it in its state (agents/runtime/states.ts); "" when awake or forming */
  state_reason: string;
  status: string;
  template: string;
  model: string | null;
  autonomy: Autonomy;
  coin_name: string;
  symbol: string;
  image_url: string;
  name: string | null;
  presence: string;
  traits: string[];
  lamports: bigint | null;
  usdc_atoms: bigint | null;
  balance_read_at: Date | null;
  unsettled_micros: bigint;
} & Record<PersonaText, string | null>;

const AGENT_SELECT = (sql: Sql) => sql`
  SELECT a.mint, a.creator, a.state, a.state_reason, a.status, a.template, a.model, a.autonomy, a.coin_name, a.symbol, a.image_url,
         a.name, a.presence, a.traits, a.drive, a.motto, a.identity, a.voice, a.lore, a.rules,
         w.lamports, w.usdc_atoms, w.read_at AS balance_read_at,
         COALESCE((SELECT sum(s.usd_micros) FROM daemon_spend s WHERE s.mint = a.mint AND s.kind = 'spend' AND s.settled_at IS NULL), 0)::bigint AS unsettled_micros
  FROM agents a LEFT JOIN wallet_balances w ON w.address = a.vault`;

/** A platform agent that is not hidden; null for an unknown or hidden mint (both 404, as in every read). */
export async function agentRecord(sql: Sql, mint: string): Promise<AgentRecord | null> {
  const [row] = await sql<AgentRecord[]>`${AGENT_SELECT(sql)} WHERE a.mint = ${mint} AND NOT a.hidden`;
  return row ?? null;
}

/** The agents a wallet launched (not hidden), newest first, at most `limit`. */
export async function agentsOf(sql: Sql, creator: string, limit: number): Promise<AgentRecord[]> {
  return sql<AgentRecord[]>`${AGENT_SELECT(sql)} WHERE a.creator = ${creator} AND NOT a.hidden ORDER BY a.created_at DESC, a.mint DESC LIMIT ${limit}`;
}

/** Serializes an operator's writes to one agent across processes (check cooldown, directive count). */
async function lockAgent(tx: Sql, mint: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${LOCKS.daemonOperator}::int, hashtext(${mint}))`;
}

// ---------------------------------------------------------------------------------------------
// Stdout

export type StdoutKind = "thinking" | "decision" | "action" | "error";
export type StdoutRow = { id: bigint; mint: string; kind: StdoutKind; body: string; meta: Record<string, unknown>; created_at: Date };
export type StdoutLine = { kind: StdoutKind; body: string; meta?: Record<string, unknown> };

export async function appendStdout(sql: Sql, mint: string, line: StdoutLine): Promise<StdoutRow> {
  const [row] = await sql<StdoutRow[]>`
    INSERT INTO daemon_stdout (mint, kind, body, meta) VALUES (${mint}, ${line.kind}, ${line.body}, ${sql.json((line.meta ?? {}) as never)})
    RETURNING id, mint, kind, body, meta, created_at`;
  return row!;
}

/** Newest first, older than `before` (an id) when given. */
export async function stdoutPage(sql: Sql, mint: string, limit: number, before: string | undefined): Promise<StdoutRow[]> {
  return sql<StdoutRow[]>`
    SELECT id, mint, kind, body, meta, created_at FROM daemon_stdout
    WHERE mint = ${mint} ${before ? sql`AND id < ${before}` : sql``}
    ORDER BY id DESC LIMIT ${limit}`;
}

/** The newest line of each of these agents. */
export async function lastLines(sql: Sql, mints: string[]): Promise<Map<string, StdoutRow>> {
  if (mints.length === 0) return new Map();
  const rows = await sql<StdoutRow[]>`
    SELECT l.* FROM unnest(${mints}::text[]) AS m(mint)
    CROSS JOIN LATERAL (SELECT id, mint, kind, body, meta, created_at FROM daemon_stdout s WHERE s.mint = m.mint ORDER BY id DESC LIMIT 1) l`;
  return new Map(rows.map((r) => [r.mint, r]));
}

// ---------------------------------------------------------------------------------------------
// Persona and autonomy

const PERSONA_COLUMNS = ["name", "presence", "traits", ...PERSONA_TEXTS] as const;

/** Writes the fields given (and the stdout line) in one transaction; the record after, or null when the agent is gone. */
export async function updatePersona(sql: Sql, mint: string, change: PersonaChange, line: (fields: string[]) => StdoutLine): Promise<AgentRecord | null> {
  const fields = PERSONA_COLUMNS.filter((c) => change[c] !== undefined);
  return inTx(sql, async (tx) => {
    if (fields.length) {
      const values = Object.fromEntries(fields.map((f) => [f, f === "traits" ? tx.json(change.traits as never) : change[f]]));
      const updated = await tx`UPDATE agents SET ${tx(values, ...fields)}, updated_at = now() WHERE mint = ${mint} AND NOT hidden RETURNING mint`;
      if (updated.length === 0) return null;
      await appendStdout(tx, mint, line(fields));
    }
    return agentRecord(tx, mint);
  });
}

/** Sets the autonomy; a line only when it changed. Returns whether it changed, or null when the agent is gone. */
export async function setAutonomy(sql: Sql, mint: string, autonomy: Autonomy, line: StdoutLine): Promise<boolean | null> {
  return inTx(sql, async (tx) => {
    const [row] = await tx<{ before: Autonomy }[]>`
      UPDATE agents a SET autonomy = ${autonomy}, updated_at = now()
      FROM (SELECT mint, autonomy AS before FROM agents WHERE mint = ${mint} AND NOT hidden FOR UPDATE) b
      WHERE a.mint = b.mint RETURNING b.before`;
    if (!row) return null;
    if (row.before === autonomy) return false;
    await appendStdout(tx, mint, line);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Directives

export type DirectiveRow = { id: bigint; kind: string; body: string; created_at: Date; archived_at: Date | null };

/** Active directives, oldest first (the order the agent is given them). */
export async function activeDirectives(sql: Sql, mint: string): Promise<DirectiveRow[]> {
  return sql<DirectiveRow[]>`
    SELECT id, kind, body, created_at, archived_at FROM daemon_directives WHERE mint = ${mint} AND archived_at IS NULL ORDER BY id`;
}

/** Adds a directive unless `max` are active already ("full"). */
export async function addDirective(sql: Sql, mint: string, d: { kind: string; body: string }, max: number, line: (id: bigint) => StdoutLine): Promise<DirectiveRow | "full"> {
  return inTx(sql, async (tx) => {
    await lockAgent(tx, mint);
    const [active] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM daemon_directives WHERE mint = ${mint} AND archived_at IS NULL`;
    if (active!.n >= max) return "full";
    const [row] = await tx<DirectiveRow[]>`
      INSERT INTO daemon_directives (mint, kind, body) VALUES (${mint}, ${d.kind}, ${d.body}) RETURNING id, kind, body, created_at, archived_at`;
    await appendStdout(tx, mint, line(row!.id));
    return row!;
  });
}

/** Archives a directive of this agent (again: unchanged, no new line); null when it has none with that id. */
export async function archiveDirective(sql: Sql, mint: string, id: string, line: (d: DirectiveRow) => StdoutLine): Promise<DirectiveRow | null> {
  return inTx(sql, async (tx) => {
    const [archived] = await tx<DirectiveRow[]>`
      UPDATE daemon_directives SET archived_at = now() WHERE mint = ${mint} AND id = ${id} AND archived_at IS NULL
      RETURNING id, kind, body, created_at, archived_at`;
    if (archived) {
      await appendStdout(tx, mint, line(archived));
      return archived;
    }
    const [existing] = await tx<DirectiveRow[]>`SELECT id, kind, body, created_at, archived_at FROM daemon_directives WHERE mint = ${mint} AND id = ${id}`;
    return existing ?? null;
  });
}

// ---------------------------------------------------------------------------------------------
// Spend

export type SpendRow = { id: bigint; at: Date; kind: "credit" | "spend"; usd_micros: bigint; what: string };

export async function recordSpend(sql: Sql, mint: string, s: { kind: "credit" | "spend"; usdMicros: bigint; what: string; at?: Date }): Promise<SpendRow> {
  const [row] = await sql<SpendRow[]>`
    INSERT INTO daemon_spend (mint, kind, usd_micros, what, at) VALUES (${mint}, ${s.kind}, ${s.usdMicros.toString()}, ${s.what}, ${s.at ?? sql`now()`})
    RETURNING id, at, kind, usd_micros, what`;
  return row!;
}

/** Newest first (by id: the order they were recorded), older than `before` when given. */
export async function spendPage(sql: Sql, mint: string, limit: number, before: string | undefined): Promise<SpendRow[]> {
  return sql<SpendRow[]>`
    SELECT id, at, kind, usd_micros, what FROM daemon_spend
    WHERE mint = ${mint} ${before ? sql`AND id < ${before}` : sql``}
    ORDER BY id DESC LIMIT ${limit}`;
}

/** What the agent spent in the last 7 × 24 hours (credits not counted). */
export async function weekSpend(sql: Sql, mint: string): Promise<bigint> {
  const [row] = await sql<{ total: bigint }[]>`
    SELECT COALESCE(sum(usd_micros), 0)::bigint AS total FROM daemon_spend
    WHERE mint = ${mint} AND kind = 'spend' AND at > now() - interval '7 days'`;
  return row!.total;
}

// ---------------------------------------------------------------------------------------------
// Proposals

export type ProposalRow = {
  id: bigint; mint: string; kind: string; payload: unknown; status: string;
  created_at: Date; expires_at: Date; decided_at: Date | null;
};

/** `approved` (by `decidedBy`): an autonomous agent's own proposal within the limits, recorded for the executor. */
export async function createProposal(sql: Sql, mint: string, p: { kind: string; payload: unknown; expiresAt: Date; approvedBy?: string }): Promise<ProposalRow> {
  const [row] = await sql<ProposalRow[]>`
    INSERT INTO daemon_proposals (mint, kind, payload, expires_at, status, decided_at, decided_by)
    VALUES (${mint}, ${p.kind}, ${sql.json(p.payload as never)}, ${p.expiresAt}, ${p.approvedBy ? "approved" : "waiting"}, ${p.approvedBy ? sql`now()` : null}, ${p.approvedBy ?? null})
    RETURNING id, mint, kind, payload, status, created_at, expires_at, decided_at`;
  return row!;
}

const DECIDED: Record<Decision, string> = { approve: "approved", reject: "rejected", regenerate: "regenerating" };

/**
 * Decides a waiting proposal of this agent. One decision wins: the row is locked, and a
 * proposal past its expiry is marked expired instead. "unknown" when the agent has no
 * proposal with that id; otherwise the proposal and whether this call decided it.
 */
export async function decideProposal(
  sql: Sql,
  mint: string,
  id: string,
  decision: Decision,
  by: string,
  line: (p: ProposalRow) => StdoutLine,
): Promise<"unknown" | { proposal: ProposalRow; outcome: "decided" | "already_decided" | "expired" }> {
  return inTx(sql, async (tx) => {
    const [p] = await tx<(ProposalRow & { past: boolean })[]>`
      SELECT id, mint, kind, payload, status, created_at, expires_at, decided_at, expires_at <= now() AS past
      FROM daemon_proposals WHERE mint = ${mint} AND id = ${id} FOR UPDATE`;
    if (!p) return "unknown";
    const { past, ...proposal } = p;
    if (proposal.status === "expired") return { proposal, outcome: "expired" };
    if (proposal.status !== "waiting") return { proposal, outcome: "already_decided" };
    if (past) {
      const [expired] = await tx<ProposalRow[]>`
        UPDATE daemon_proposals SET status = 'expired' WHERE id = ${id} RETURNING id, mint, kind, payload, status, created_at, expires_at, decided_at`;
      return { proposal: expired!, outcome: "expired" };
    }
    const [decided] = await tx<ProposalRow[]>`
      UPDATE daemon_proposals SET status = ${DECIDED[decision]}, decided_at = now(), decided_by = ${by} WHERE id = ${id}
      RETURNING id, mint, kind, payload, status, created_at, expires_at, decided_at`;
    await appendStdout(tx, mint, line(decided!));
    return { proposal: decided!, outcome: "decided" };
  });
}

/** Waiting proposals not yet expired, per agent of these. */
export async function waitingProposals(sql: Sql, mints: string[]): Promise<Map<string, number>> {
  if (mints.length === 0) return new Map();
  const rows = await sql<{ mint: string; n: number }[]>`
    SELECT mint, count(*)::int AS n FROM daemon_proposals
    WHERE mint IN ${sql(mints)} AND status = 'waiting' AND expires_at > now() GROUP BY mint`;
  return new Map(rows.map((r) => [r.mint, r.n]));
}

// ---------------------------------------------------------------------------------------------
// Check requests

/**
 * Queues a decision cycle unless one was asked for less than `cooldownSeconds` ago (the
 * per-agent lock makes this hold across processes). Times are Postgres's clock.
 */
export async function requestCheck(sql: Sql, mint: string, by: string, cooldownSeconds: number, line: StdoutLine): Promise<{ queued: true; id: bigint } | { queued: false; retryAfterSeconds: number }> {
  return inTx(sql, async (tx) => {
    await lockAgent(tx, mint);
    const [last] = await tx<{ wait: number }[]>`
      SELECT ${cooldownSeconds} - extract(epoch FROM now() - max(requested_at))::float8 AS wait
      FROM daemon_checks WHERE mint = ${mint} HAVING max(requested_at) > now() - make_interval(secs => ${cooldownSeconds})`;
    if (last) return { queued: false, retryAfterSeconds: Math.max(1, Math.ceil(last.wait)) };
    const [row] = await tx<{ id: bigint }[]>`INSERT INTO daemon_checks (mint, requested_by) VALUES (${mint}, ${by}) RETURNING id`;
    await appendStdout(tx, mint, line);
    return { queued: true, id: row!.id };
  });
}

/** For the runtime: takes the oldest queued check no other process is taking, marking it started. */
export async function takeQueuedCheck(sql: Sql): Promise<{ id: bigint; mint: string } | null> {
  const [row] = await sql<{ id: bigint; mint: string }[]>`
    UPDATE daemon_checks SET started_at = now()
    WHERE id = (SELECT id FROM daemon_checks WHERE started_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id, mint`;
  return row ?? null;
}
