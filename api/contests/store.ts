/**
 * Every SQL of contest records (sql/postgres/0015_contests.sql): create (with the ref that makes
 * it idempotent), cancel, the reads, and the job's moves (agents/contests/), each move a
 * compare-and-set on `status`.
 */
import type { Sql } from "../../infra/postgres";
import type { ContestKind, ContestSpec, Weighting } from "./model";
import type { PaymentOf } from "./views";

export const CONTEST_STATUSES = ["open", "drawing", "paying", "paid", "cancelled", "failed"] as const;
export type ContestStatus = (typeof CONTEST_STATUSES)[number];

export type ContestRow = {
  id: bigint;
  mint: string;
  ref: string | null;
  request_hash: string;
  requested_by: string;
  proposal_id: bigint | null;
  kind: ContestKind;
  weighting: Weighting;
  title: string;
  rules: string;
  budget_lamports: bigint;
  winners: number;
  split_bps: number[] | null;
  prizes: string[];
  ends_at: Date;
  status: ContestStatus;
  status_reason: string;
  created_at: Date;
  snapshot_id: bigint | null;
  snapshot_slot: bigint | null;
  snapshot_hash: string | null;
  seed_slot: bigint | null;
  seed_block_slot: bigint | null;
  blockhash: string | null;
  proof: Record<string, unknown> | null;
  committed_at: Date | null;
  drawn_at: Date | null;
  paid_at: Date | null;
  cancelled_at: Date | null;
  failed_at: Date | null;
  published: string[];
};

export type WinnerRow = { contest_id: bigint; rank: number; owner: string; balance: string; lamports: bigint };

const COLUMNS = (sql: Sql) => sql`
  id, mint, ref, request_hash, requested_by, proposal_id, kind, weighting, title, rules, budget_lamports, winners, split_bps, prizes,
  ends_at, status, status_reason, created_at, snapshot_id, snapshot_slot, snapshot_hash, seed_slot, seed_block_slot, blockhash, proof,
  committed_at, drawn_at, paid_at, cancelled_at, failed_at, published`;

export type NewContest = ContestSpec & { mint: string; ref: string | null; requestHash: string; requestedBy: string; proposalId: bigint | null; prizes: bigint[] };

/** Inserts the contest, or finds the one this agent already made with this ref (`created: false`). */
export async function insertContest(tx: Sql, c: NewContest): Promise<{ row: ContestRow; created: boolean }> {
  const [row] = await tx<ContestRow[]>`
    INSERT INTO contests (mint, ref, request_hash, requested_by, proposal_id, kind, weighting, title, rules, budget_lamports, winners, split_bps, prizes, ends_at)
    VALUES (${c.mint}, ${c.ref}, ${c.requestHash}, ${c.requestedBy}, ${c.proposalId === null ? null : c.proposalId.toString()}, ${c.kind}, ${c.weighting},
            ${c.title}, ${c.rules}, ${c.budgetLamports.toString()}, ${c.winners}, ${c.splitBps === null ? null : tx.json(c.splitBps)},
            ${tx.json(c.prizes.map(String))}, ${c.endsAt})
    ON CONFLICT (mint, ref) DO NOTHING
    RETURNING ${COLUMNS(tx)}`;
  if (row) return { row, created: true };
  return { row: (await byRef(tx, c.mint, c.ref!))!, created: false };
}

export async function byRef(sql: Sql, mint: string, ref: string): Promise<ContestRow | null> {
  const [row] = await sql<ContestRow[]>`SELECT ${COLUMNS(sql)} FROM contests WHERE mint = ${mint} AND ref = ${ref}`;
  return row ?? null;
}

export async function contestOf(sql: Sql, mint: string, id: string | bigint): Promise<ContestRow | null> {
  const [row] = await sql<ContestRow[]>`SELECT ${COLUMNS(sql)} FROM contests WHERE mint = ${mint} AND id = ${id.toString()}`;
  return row ?? null;
}

export async function contestById(sql: Sql, id: string | bigint): Promise<ContestRow | null> {
  const [row] = await sql<ContestRow[]>`SELECT ${COLUMNS(sql)} FROM contests WHERE id = ${id.toString()}`;
  return row ?? null;
}

/** For the contest job (agents/contests/): contests in `status` (open ones once ended), oldest end first. */
export async function contestsToMove(sql: Sql, status: ContestStatus, limit: number): Promise<ContestRow[]> {
  return sql<ContestRow[]>`
    SELECT ${COLUMNS(sql)} FROM contests WHERE status = ${status} ${status === "open" ? sql`AND ends_at <= now()` : sql``}
    ORDER BY ends_at, id LIMIT ${limit}`;
}

/** For the contest job: contests with a feed item due and not yet published (agents/contests/publish.ts), oldest first. */
export async function contestsToPublish(sql: Sql, limit: number): Promise<ContestRow[]> {
  return sql<ContestRow[]>`
    SELECT ${COLUMNS(sql)} FROM contests
    WHERE NOT ('contest_opened' = ANY (published))
       OR (drawn_at IS NOT NULL AND NOT ('contest_drawn' = ANY (published)))
       OR (status = 'paid' AND NOT ('contest_paid' = ANY (published)))
    ORDER BY id LIMIT ${limit}`;
}

/** Newest first, older than `before` (an id) when given. */
export async function contestPage(sql: Sql, mint: string, limit: number, before: string | undefined): Promise<ContestRow[]> {
  return sql<ContestRow[]>`
    SELECT ${COLUMNS(sql)} FROM contests WHERE mint = ${mint} ${before ? sql`AND id < ${before}` : sql``}
    ORDER BY id DESC LIMIT ${limit}`;
}

export async function winnersOf(sql: Sql, ids: bigint[]): Promise<Map<string, WinnerRow[]>> {
  const out = new Map<string, WinnerRow[]>();
  if (ids.length === 0) return out;
  const rows = await sql<WinnerRow[]>`
    SELECT contest_id, rank, owner, balance::text AS balance, lamports FROM contest_winners
    WHERE contest_id IN ${sql(ids.map(String))} ORDER BY contest_id, rank`;
  for (const r of rows) {
    const k = r.contest_id.toString();
    out.set(k, [...(out.get(k) ?? []), r]);
  }
  return out;
}

/**
 * Cancels an open contest before its end (the row locked): the row after, or why not
 * ("unknown", or the row as it is when it is past cancelling).
 */
export async function cancelContest(tx: Sql, mint: string, id: string): Promise<{ cancelled: true; row: ContestRow } | { cancelled: false; row: ContestRow | null; ended: boolean }> {
  const [now] = await tx<(ContestRow & { ended: boolean })[]>`
    SELECT ${COLUMNS(tx)}, ends_at <= now() AS ended FROM contests WHERE mint = ${mint} AND id = ${id} FOR UPDATE`;
  if (!now) return { cancelled: false, row: null, ended: false };
  const { ended, ...row } = now;
  if (row.status !== "open" || ended) return { cancelled: false, row, ended };
  const [after] = await tx<ContestRow[]>`
    UPDATE contests SET status = 'cancelled', status_reason = 'cancelled by the operator', cancelled_at = now()
    WHERE id = ${id} RETURNING ${COLUMNS(tx)}`;
  return { cancelled: true, row: after! };
}

/** The agent's vault and whether its coin trades against SOL (its fee claims are lamports). */
export async function vaultOf(sql: Sql, mint: string): Promise<{ vault: string; config: string } | null> {
  const [row] = await sql<{ vault: string; config: string }[]>`SELECT vault, config FROM agents WHERE mint = ${mint}`;
  return row ?? null;
}

/**
 * Each prize's payment, per contest and recipient: the status of the payment batch its transfer
 * is in (sql/postgres/0014: payment_batches, payment_transfers) and the batch's current transaction.
 */
export async function prizePayments(sql: Sql, ownerKind: string, ids: bigint[]): Promise<Map<string, Map<string, PaymentOf>>> {
  const out = new Map<string, Map<string, PaymentOf>>();
  if (ids.length === 0) return out;
  const rows = await sql<{ owner_id: string; recipient: string; status: string; signature: string | null }[]>`
    SELECT b.owner_id, t.recipient, b.status, b.signature
    FROM payment_batches b JOIN payment_transfers t ON t.batch_id = b.id
    WHERE b.owner_kind = ${ownerKind} AND b.owner_id IN ${sql(ids.map(String))}`;
  for (const r of rows) {
    if (!out.has(r.owner_id)) out.set(r.owner_id, new Map());
    out.get(r.owner_id)!.set(r.recipient, { status: r.status, signature: r.signature });
  }
  return out;
}
