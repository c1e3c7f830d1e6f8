/**
 * The executor's writes to the batch tables, each a compare-and-set on the batch's lease and
 * status, so a process that lost its lease (or a second executor) never moves a batch twice:
 * - record: a queued batch gets its signed transaction (batch -> built, one more attempt);
 * - markSending / markSent: counts a send before it is made, then notes it was made;
 * - settle: the batch ends confirmed, failed or expired, and its owner's handler runs in the
 *   same transaction (one settlement per owner at a time);
 * - requeue: an expired transaction sends the batch back to queued for a new attempt.
 */
import type { Sql } from "../../infra/postgres";
import { BATCH_COLUMNS, type BatchRow, type BatchStatus } from "./batches";
import type { OwnerRegistry } from "./owners";

export type Claimed = BatchRow & { build_failures: number; lease_token: string };
export type RecordedTx = { signature: string; tx: Uint8Array; blockhash: string; last_valid_block_height: bigint; sends: number; status: BatchStatus };

/** Takes up to `limit` due batches no other process holds, for `leaseSeconds`. */
export async function claimDue(sql: Sql, token: string, limit: number, leaseSeconds: number): Promise<Claimed[]> {
  return sql<Claimed[]>`
    UPDATE payment_batches SET lease_token = ${token}, lease_until = now() + make_interval(secs => ${leaseSeconds})
    WHERE id IN (
      SELECT id FROM payment_batches
      WHERE status IN ('queued', 'built', 'sent') AND due_at <= now() AND (lease_until IS NULL OR lease_until < now())
      ORDER BY due_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${sql.unsafe(BATCH_COLUMNS)}, build_failures, lease_token`;
}

/** The batch's current transaction, as recorded. */
export async function currentTx(sql: Sql, b: Pick<BatchRow, "id" | "signature">): Promise<RecordedTx | null> {
  if (!b.signature) return null;
  const [t] = await sql<RecordedTx[]>`
    SELECT signature, tx, blockhash, last_valid_block_height, sends, status FROM payment_transactions WHERE signature = ${b.signature} AND batch_id = ${b.id.toString()}`;
  return t ?? null;
}

/** Lets the batch go until `inSeconds` from now (its lease released). */
export async function release(sql: Sql, b: Claimed, inSeconds: number, error?: string): Promise<void> {
  await sql`
    UPDATE payment_batches SET lease_token = NULL, lease_until = NULL, due_at = now() + make_interval(secs => ${inSeconds}), updated_at = now()
      ${error === undefined ? sql`` : sql`, error = ${error}`}
    WHERE id = ${b.id.toString()} AND lease_token = ${b.lease_token}`;
}

/** A builder failed: counted; the batch fails once it failed max_attempts times in a row. Returns whether it failed for good. */
export async function buildFailed(sql: Sql, owners: OwnerRegistry, b: Claimed, error: string, retrySeconds: number): Promise<boolean> {
  if (b.build_failures + 1 >= b.max_attempts) {
    await settle(sql, owners, b, { status: "failed", error: `could not be built ${b.max_attempts} times: ${error}` });
    return true;
  }
  await sql`UPDATE payment_batches SET build_failures = build_failures + 1 WHERE id = ${b.id.toString()} AND lease_token = ${b.lease_token}`;
  await release(sql, b, retrySeconds, error);
  return false;
}

/** Whether a transaction with this signature was recorded already (by any batch). */
export async function recordedBefore(sql: Sql, signature: string): Promise<boolean> {
  return (await sql`SELECT 1 FROM payment_transactions WHERE signature = ${signature}`).length > 0;
}

/** queued -> built with its signed transaction; false when the batch is no longer this process's to build. */
export async function record(
  sql: Sql,
  b: Claimed,
  t: { signature: string; tx: Uint8Array; blockhash: string; lastValidBlockHeight: number; result: Record<string, unknown> | null },
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ attempts: number }[]>`
      UPDATE payment_batches SET status = 'built', attempts = attempts + 1, build_failures = 0, signature = ${t.signature}, error = NULL,
        result = ${t.result === null ? null : tx.json(t.result as never)}, updated_at = now()
      WHERE id = ${b.id.toString()} AND lease_token = ${b.lease_token} AND status = 'queued'
      RETURNING attempts`;
    if (!row) return false;
    await tx`
      INSERT INTO payment_transactions (signature, batch_id, attempt, tx, blockhash, last_valid_block_height)
      VALUES (${t.signature}, ${b.id.toString()}, ${row.attempts}, ${Buffer.from(t.tx)}, ${t.blockhash}, ${t.lastValidBlockHeight})`;
    return true;
  }) as Promise<boolean>;
}

/** Counts a send before it is made: afterwards, a refusal no longer proves the transaction never went out. Returns the sends before this one. */
export async function markSending(sql: Sql, signature: string): Promise<number> {
  const [r] = await sql<{ sends: number }[]>`UPDATE payment_transactions SET sends = sends + 1, sent_at = COALESCE(sent_at, now()) WHERE signature = ${signature} RETURNING sends`;
  return (r?.sends ?? 1) - 1;
}

export async function markSent(sql: Sql, b: Claimed, signature: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`UPDATE payment_batches SET status = 'sent', updated_at = now() WHERE id = ${b.id.toString()} AND lease_token = ${b.lease_token} AND status = 'built' AND signature = ${signature}`;
    await tx`UPDATE payment_transactions SET status = 'sent' WHERE signature = ${signature} AND status = 'built'`;
  });
}

/** The current transaction can never land: the batch is queued again (a new attempt), or, out of attempts, ends expired. */
export async function expire(sql: Sql, owners: OwnerRegistry, b: Claimed, signature: string): Promise<"requeued" | "expired"> {
  if (b.attempts >= b.max_attempts) {
    await settle(sql, owners, b, { status: "expired", error: `expired ${b.attempts} times without landing` });
    return "expired";
  }
  await sql.begin(async (tx) => {
    const [moved] = await tx<{ id: bigint }[]>`
      UPDATE payment_batches SET status = 'queued', signature = NULL, updated_at = now()
      WHERE id = ${b.id.toString()} AND lease_token = ${b.lease_token} AND status IN ('built', 'sent') AND signature = ${signature}
      RETURNING id`;
    if (moved) await tx`UPDATE payment_transactions SET status = 'expired', settled_at = now() WHERE signature = ${signature}`;
  });
  return "requeued";
}

/**
 * Ends the batch (confirmed, failed or expired) and runs its owner's onSettled in the same
 * transaction. Returns the settled batch, or null when it was not this process's to settle.
 */
export async function settle(
  sql: Sql,
  owners: OwnerRegistry,
  b: Claimed,
  end: { status: "confirmed" | "failed" | "expired"; error?: string; err?: unknown; result?: Record<string, unknown> },
): Promise<BatchRow | null> {
  return sql.begin(async (tx) => {
    // one settlement per owner at a time: a handler counting its owner's open batches then sees
    // every other batch's settlement committed (two batches settling at once would each see the
    // other still open, and neither would complete the action)
    await tx`SELECT pg_advisory_xact_lock(hashtext(${b.owner_kind}), hashtext(${b.owner_id}))`;
    const [row] = await tx<BatchRow[]>`
      UPDATE payment_batches SET status = ${end.status}, error = ${end.error ?? null}, settled_at = now(), updated_at = now(),
        lease_token = NULL, lease_until = NULL
        ${end.result ? tx`, result = COALESCE(result, '{}'::jsonb) || ${tx.json(end.result as never)}` : tx``}
      WHERE id = ${b.id.toString()} AND lease_token = ${b.lease_token} AND status IN ('queued', 'built', 'sent')
      RETURNING ${tx.unsafe(BATCH_COLUMNS)}`;
    if (!row) return null;
    if (row.signature)
      await tx`UPDATE payment_transactions SET status = ${end.status}, err = ${end.err === undefined ? null : tx.json(end.err as never)}, settled_at = now()
               WHERE signature = ${row.signature}`;
    await owners.get(row.owner_kind)?.onSettled?.(tx as unknown as Sql, row);
    return row;
  }) as Promise<BatchRow | null>;
}
