/**
 * Payment batches: how any treasury action (an airdrop, a contest's prizes, a buyback, a step
 * of the platform's fee distribution) asks the executor (executor.ts) to move funds. The
 * action enqueues batches in its own Postgres transaction (with its own record and its spend
 * reservation), the executor builds, signs, records, sends and confirms each one, and tells
 * the action when a batch settles (owners.ts) in the same transaction that settles it.
 *
 * State per batch: queued -> built -> sent -> confirmed | failed | expired. A transaction is
 * recorded (signature, bytes, blockhash, last valid block height) before it is first sent;
 * an expired one (past its last valid block height and unknown to the chain) sends the
 * batch back to queued for a new attempt, up to max_attempts.
 */
import type { Sql } from "../../infra/postgres";

export type Payer = { kind: "vault"; mint: string } | { kind: "treasury"; address: string };
export type Transfer = { recipient: string; lamports: bigint };
export type BatchStatus = "queued" | "built" | "sent" | "confirmed" | "failed" | "expired";
export const OPEN_STATUSES: readonly BatchStatus[] = ["queued", "built", "sent"];
export const SETTLED_STATUSES: readonly BatchStatus[] = ["confirmed", "failed", "expired"];

/** System transfers fit about 21 to a legacy transaction (1232 bytes); 20 leaves room. */
export const DEFAULT_BATCH_SIZE = 20;
export const DEFAULT_MAX_ATTEMPTS = 5;

/** A batch whose transaction a registered builder makes (builders.ts): `lamports` is what it spends. */
export type CustomBatch = { builder: string; params: Record<string, unknown>; lamports: bigint };

export type EnqueueRequest = {
  ownerKind: string;
  ownerId: string;
  payer: Payer;
  /** plain SOL transfers, split into batches of `batchSize` (builder 'transfers') */
  transfers?: readonly Transfer[];
  batchSize?: number;
  /** batches built by a registered builder, one each */
  custom?: readonly CustomBatch[];
  maxAttempts?: number;
  /** not before (default now) */
  dueAt?: Date;
};

export type BatchRow = {
  id: bigint;
  owner_kind: string;
  owner_id: string;
  seq: number;
  payer_kind: "vault" | "treasury";
  payer_mint: string | null;
  payer: string;
  builder: string;
  params: Record<string, unknown>;
  lamports: bigint;
  status: BatchStatus;
  attempts: number;
  max_attempts: number;
  signature: string | null;
  error: string | null;
  result: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  settled_at: Date | null;
};
export const BATCH_COLUMNS = `id, owner_kind, owner_id, seq, payer_kind, payer_mint, payer, builder, params, lamports, status, attempts,
  max_attempts, signature, error, result, created_at, updated_at, settled_at`;

/**
 * Queues the batches inside the caller's transaction; returns their ids in order. A vault
 * payer is named by the agent's mint (its vault address is read here); sequence numbers
 * continue after the owner's earlier batches. Throws for an unknown agent or an empty request.
 */
export async function enqueuePayments(tx: Sql, r: EnqueueRequest): Promise<bigint[]> {
  const size = r.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(size) || size < 1) throw new Error(`batchSize must be a positive integer (got ${size})`);
  for (const t of r.transfers ?? []) if (t.lamports <= 0n) throw new Error(`a transfer to ${t.recipient} of ${t.lamports} lamports: transfers are positive`);
  let payer: string;
  if (r.payer.kind === "vault") {
    const [a] = await tx<{ vault: string }[]>`SELECT vault FROM agents WHERE mint = ${r.payer.mint}`;
    if (!a) throw new Error(`no agent with mint ${r.payer.mint}`);
    payer = a.vault;
  } else payer = r.payer.address;
  const payerMint = r.payer.kind === "vault" ? r.payer.mint : null;

  const chunks: Transfer[][] = [];
  const transfers = r.transfers ?? [];
  for (let i = 0; i < transfers.length; i += size) chunks.push(transfers.slice(i, i + size));
  const planned: { builder: string; params: Record<string, unknown>; lamports: bigint; transfers: Transfer[] }[] = [
    ...chunks.map((c) => ({ builder: "transfers", params: {}, lamports: c.reduce((s, t) => s + t.lamports, 0n), transfers: c })),
    ...(r.custom ?? []).map((c) => ({ builder: c.builder, params: c.params, lamports: c.lamports, transfers: [] })),
  ];
  if (planned.length === 0) throw new Error("nothing to pay: no transfers and no custom batches");

  const [last] = await tx<{ seq: number | null }[]>`SELECT max(seq) AS seq FROM payment_batches WHERE owner_kind = ${r.ownerKind} AND owner_id = ${r.ownerId}`;
  let seq = (last?.seq ?? -1) + 1;
  const ids: bigint[] = [];
  for (const p of planned) {
    const [b] = await tx<{ id: bigint }[]>`
      INSERT INTO payment_batches (owner_kind, owner_id, seq, payer_kind, payer_mint, payer, builder, params, lamports, max_attempts, due_at)
      VALUES (${r.ownerKind}, ${r.ownerId}, ${seq++}, ${r.payer.kind}, ${payerMint}, ${payer}, ${p.builder}, ${tx.json(p.params as never)},
              ${p.lamports.toString()}, ${r.maxAttempts ?? DEFAULT_MAX_ATTEMPTS}, ${r.dueAt ?? tx`now()`})
      RETURNING id`;
    const id = b!.id;
    if (p.transfers.length) {
      const rows = p.transfers.map((t, i) => ({ batch_id: id.toString(), i, recipient: t.recipient, lamports: t.lamports.toString() }));
      await tx`INSERT INTO payment_transfers ${tx(rows, "batch_id", "i", "recipient", "lamports")}`;
    }
    ids.push(id);
  }
  return ids;
}

export type TransactionRow = {
  signature: string;
  batch_id: bigint;
  attempt: number;
  /** a transaction is recorded built (payment_transactions), never queued */
  status: Exclude<BatchStatus, "queued">;
  blockhash: string;
  last_valid_block_height: bigint;
  err: unknown;
  sends: number;
  built_at: Date;
  sent_at: Date | null;
  settled_at: Date | null;
};

/** The batches of some owners of one kind, in owner then sequence order, each with its transactions (every attempt) and transfer count. */
export async function batchesOf(sql: Sql, ownerKind: string, ownerIds: readonly string[]) {
  if (ownerIds.length === 0) return [];
  const batches = await sql<(BatchRow & { transfers: number })[]>`
    SELECT ${sql.unsafe(BATCH_COLUMNS)}, (SELECT count(*)::int FROM payment_transfers t WHERE t.batch_id = b.id) AS transfers
    FROM payment_batches b WHERE owner_kind = ${ownerKind} AND owner_id IN ${sql(ownerIds as string[])} ORDER BY owner_id, seq`;
  const txs = batches.length
    ? await sql<TransactionRow[]>`
        SELECT signature, batch_id, attempt, status, blockhash, last_valid_block_height, err, sends, built_at, sent_at, settled_at
        FROM payment_transactions WHERE batch_id IN ${sql(batches.map((b) => b.id.toString()))} ORDER BY batch_id, attempt`
    : [];
  const byBatch = new Map<bigint, TransactionRow[]>();
  for (const t of txs) byBatch.set(t.batch_id, [...(byBatch.get(t.batch_id) ?? []), t]);
  return batches.map((b) => ({ ...b, transactions: byBatch.get(b.id) ?? [] }));
}

/** The transfers of one batch, in order. */
export async function transfersOf(sql: Sql, batchId: bigint): Promise<Transfer[]> {
  const rows = await sql<{ recipient: string; lamports: bigint }[]>`SELECT recipient, lamports FROM payment_transfers WHERE batch_id = ${batchId.toString()} ORDER BY i`;
  return rows.map((r) => ({ recipient: r.recipient, lamports: BigInt(r.lamports) }));
}

export type OwnerProgress = { batches: number; open: number; confirmed: number; failed: number; expired: number; paidLamports: bigint };

/** Where an owner's batches stand (read inside a settlement handler to tell whether the action is done). */
export async function ownerProgress(sql: Sql, ownerKind: string, ownerId: string): Promise<OwnerProgress> {
  const [r] = await sql<{ batches: number; open: number; confirmed: number; failed: number; expired: number; paid: string }[]>`
    SELECT count(*)::int AS batches,
           count(*) FILTER (WHERE status IN ('queued', 'built', 'sent'))::int AS open,
           count(*) FILTER (WHERE status = 'confirmed')::int AS confirmed,
           count(*) FILTER (WHERE status = 'failed')::int AS failed,
           count(*) FILTER (WHERE status = 'expired')::int AS expired,
           COALESCE(sum(lamports) FILTER (WHERE status = 'confirmed'), 0)::text AS paid
    FROM payment_batches WHERE owner_kind = ${ownerKind} AND owner_id = ${ownerId}`;
  return { batches: r!.batches, open: r!.open, confirmed: r!.confirmed, failed: r!.failed, expired: r!.expired, paidLamports: BigInt(r!.paid) };
}

/** Public shape of a batch and its transactions (no transaction bytes: the signature finds it on-chain). */
export function batchView(b: Awaited<ReturnType<typeof batchesOf>>[number]) {
  return {
    seq: b.seq,
    status: b.status,
    lamports: b.lamports.toString(),
    transfers: b.transfers,
    attempts: b.attempts,
    signature: b.signature,
    error: b.error,
    transactions: b.transactions.map((t) => ({
      signature: t.signature,
      attempt: t.attempt,
      status: t.status,
      lastValidBlockHeight: Number(t.last_valid_block_height),
      builtAt: t.built_at.toISOString(),
      sentAt: t.sent_at?.toISOString() ?? null,
    })),
  };
}
