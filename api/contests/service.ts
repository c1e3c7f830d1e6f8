/**
 * Contests as plain functions of (deps, args): create (the operator's POST and the agent's
 * approved proposals alike), cancel, and the public reads. A contest's limits are checked and
 * its budget reserved from the vault's claimed fees in the one transaction that records it.
 * The draw and the prizes are the `agents` process's (agents/contests/).
 */
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import type { Firewall } from "../firewall/firewall";
import { ApiError, notFound, validationError } from "../errors";
import { capabilityMissing, chainUnavailable, notCovered, refReused, vaultKeyMissing } from "../errors/treasury";
import { capabilitiesOf } from "../daemons/catalog";
import { appendStdout, inTx, type AgentRecord, type StdoutLine } from "../daemons/store";
import { endsAtProblems, limitProblems, prizesOf, specHash, type ContestSpec } from "./model";
import * as store from "./store";
import { contestView } from "./views";

/** The owner kind of a contest's spend reservation and prize batches (the treasury's ledgers). */
export const CONTEST_OWNER = "contest";

export type Reservation = { ok: true } | { ok: false; claimedLamports: bigint; committedLamports: bigint; availableLamports: bigint };

/** What contests need of the treasury core (agents/treasury/, wired by compose/contests.ts): the vault's claimed fees and spend ledger, its key, snapshots. */
export type ContestTreasury = {
  /** the vault's claimed fees, all time (read before the transaction) */
  claimedLamports(o: { mint: string; vault: string; config: string }): Promise<bigint>;
  /** in `tx`: reserves `lamports` of the vault's room for the contest, or refuses with the figures */
  reserve(tx: Sql, r: { mint: string; vault: string; ownerKind: string; ownerId: string; lamports: bigint; claimedLamports: bigint }): Promise<Reservation>;
  /** whether the platform holds the vault's sealed key (it signs the prizes) */
  holdsVaultKey(sql: Sql, vault: string): Promise<boolean>;
  /** in `tx`: gives the reservation back (a cancelled contest) */
  release(tx: Sql, ownerKind: string, ownerId: string): Promise<void>;
  /** a stored holder snapshot in its public shape (the one airdrops link to too, with its entries sorted by owner), or null */
  snapshot(sql: Sql, id: bigint): Promise<Record<string, unknown> | null>;
};

export type ContestDeps = {
  sql: Sql;
  firewall: Firewall;
  log: Logger;
  treasury: ContestTreasury;
  /** whether this deployment reads the chain (SOLANA_RPC_URL): without it nothing could be drawn or paid */
  chain: boolean;
};

/** Who asks: the operator (its wallet, and the request's ref) or the agent's own approved proposal. */
export type Requester = { by: string; ref: string | null; proposalId?: bigint; line: (id: bigint) => StdoutLine };

const blocked = (field: string, reason: string) => new ApiError(422, "FIREWALL_BLOCKED", `${field} was blocked by the safety filter: ${reason}`, { field });

// ---------------------------------------------------------------------------------------------
// Create and cancel

/**
 * Creates a contest for `agent`: 400 for a limit (every problem at once), the same answer for a
 * repeated ref (checked before the time window, so a retry near the end still finds its contest),
 * 409 REF_REUSED, 503 UPSTREAM_ERROR without a chain, 409 CAPABILITY_MISSING, 422 FIREWALL_BLOCKED, 409 VAULT_KEY_MISSING, 409 NOT_COVERED. The record, the
 * reservation and the agent's stdout line are one transaction.
 */
export async function createContest(deps: ContestDeps, agent: AgentRecord, spec: ContestSpec, who: Requester, now = new Date()): Promise<{ id: string; created: boolean }> {
  const problems = limitProblems(spec);
  const late = endsAtProblems(spec.endsAt, now);
  if (problems.length) throw validationError([...problems, ...late]);
  const requestHash = specHash(spec);
  if (who.ref) {
    const existing = await store.byRef(deps.sql, agent.mint, who.ref);
    if (existing) {
      if (existing.request_hash !== requestHash) throw refReused(who.ref);
      return { id: existing.id.toString(), created: false };
    }
  }
  if (late.length) throw validationError(late);
  if (!deps.chain) throw chainUnavailable();
  if (!capabilitiesOf(agent.template).includes("program.contest")) throw capabilityMissing("program.contest", agent.template);
  const hit = deps.firewall.check([
    { field: "contest.title", text: spec.title },
    { field: "contest.rules", text: spec.rules },
  ]);
  if (hit) throw blocked(hit.field.slice("contest.".length), hit.reason);

  const wallets = await store.vaultOf(deps.sql, agent.mint);
  if (!wallets) throw notFound(`no agent with mint ${agent.mint}`);
  // the prizes are paid by the vault: the platform must hold its key
  if (!(await deps.treasury.holdsVaultKey(deps.sql, wallets.vault))) throw vaultKeyMissing(agent.mint);
  const claimedLamports = await deps.treasury.claimedLamports({ mint: agent.mint, ...wallets });
  const prizes = prizesOf(spec.budgetLamports, spec.winners, spec.splitBps);
  return inTx(deps.sql, async (tx) => {
    const { row, created } = await store.insertContest(tx, {
      ...spec, mint: agent.mint, ref: who.ref, requestHash, requestedBy: who.by, proposalId: who.proposalId ?? null, prizes,
    });
    // a concurrent request with this ref won the insert: its answer, as above
    if (!created) {
      if (row.request_hash !== requestHash) throw refReused(who.ref!);
      return { id: row.id.toString(), created: false };
    }
    const reserved = await deps.treasury.reserve(tx, {
      mint: agent.mint, vault: wallets.vault, ownerKind: CONTEST_OWNER, ownerId: row.id.toString(), lamports: spec.budgetLamports, claimedLamports,
    });
    if (!reserved.ok) throw notCovered(spec.budgetLamports, reserved);
    await appendStdout(tx, agent.mint, who.line(row.id));
    return { id: row.id.toString(), created: true };
  });
}

/** Cancels an open contest before its end: 404 unknown, 409 CONTEST_NOT_OPEN once ended, drawn or finished; again on a cancelled one: its record. */
export async function cancelContest(deps: ContestDeps, agent: AgentRecord, id: string, line: StdoutLine) {
  const r = await inTx(deps.sql, async (tx) => {
    const r = await store.cancelContest(tx, agent.mint, id);
    if (r.cancelled) {
      await deps.treasury.release(tx, CONTEST_OWNER, id);
      await appendStdout(tx, agent.mint, line);
    }
    return r;
  });
  if (!r.row) throw notFound(`${agent.mint} has no contest ${id}`);
  if (!r.cancelled && r.row.status !== "cancelled") {
    const why = r.row.status === "open" ? `it ended at ${r.row.ends_at.toISOString()}: its snapshot and seed are being fixed` : `it is ${r.row.status}`;
    throw new ApiError(409, "CONTEST_NOT_OPEN", `contest ${id} can no longer be cancelled: ${why}`, { status: r.row.status, endsAt: r.row.ends_at.toISOString() });
  }
  return oneView(deps, r.row);
}

// ---------------------------------------------------------------------------------------------
// Reads

/** The contests' public shapes, with their winners and each prize's payment (two reads for any number of contests). */
async function views(sql: Sql, rows: store.ContestRow[]) {
  const ids = rows.map((r) => r.id);
  const [winners, payments] = await Promise.all([store.winnersOf(sql, ids), store.prizePayments(sql, CONTEST_OWNER, ids)]);
  return rows.map((r) => contestView(r, winners.get(r.id.toString()) ?? [], payments.get(r.id.toString()) ?? new Map()));
}
const oneView = async (deps: ContestDeps, row: store.ContestRow) => (await views(deps.sql, [row]))[0]!;

/** GET …/contests: newest first; `nextCursor` is the last contest's id while older ones may exist. */
export async function listContests(deps: ContestDeps, mint: string, q: { limit: number; cursor?: string }) {
  const rows = await store.contestPage(deps.sql, mint, q.limit + 1, q.cursor);
  const page = rows.slice(0, q.limit);
  return { items: await views(deps.sql, page), nextCursor: rows.length > q.limit ? page.at(-1)!.id.toString() : null };
}

async function contestOr404(sql: Sql, mint: string, id: string) {
  const row = await store.contestOf(sql, mint, id);
  if (!row) throw notFound(`${mint} has no contest ${id}`);
  return row;
}

export async function getContest(deps: ContestDeps, mint: string, id: string) {
  return oneView(deps, await contestOr404(deps.sql, mint, id));
}

/** GET …/contests/:id/snapshot: the holders the draw used; 404 before the snapshot is fixed (at endsAt). */
export async function getSnapshot(deps: ContestDeps, mint: string, id: string) {
  const row = await contestOr404(deps.sql, mint, id);
  if (row.snapshot_id === null) throw notFound(`contest ${id} has no snapshot yet: it is fixed when the contest ends (${row.ends_at.toISOString()})`);
  const snap = await deps.treasury.snapshot(deps.sql, row.snapshot_id);
  if (!snap) throw notFound(`contest ${id}'s snapshot ${row.snapshot_id} is gone`);
  return { contestId: row.id.toString(), ...snap };
}
