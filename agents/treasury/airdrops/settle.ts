/**
 * The airdrop as the payment executor's owner: each settled batch updates what the airdrop
 * paid; the last one completes it (paid, partial or failed), settles its vault spend to what
 * was paid and tells the agent's stdout, all in the settling transaction. Completed airdrops
 * that paid something are published after each executor turn as an `airdrop` activity row
 * (the Data API's activity and the Application API's feeds read it), with every signature;
 * the row's id is the airdrop's, so writing it again after a crash replaces it.
 * Approved airdrop proposals of the runtime are taken before each turn (proposals.ts).
 */
import type { Sql } from "../../../infra/postgres";
import type { ClickHouse } from "../../../infra/clickhouse";
import type { Logger } from "../../../infra/log";
import type { ActivityRow } from "../../../pipelines/rows";
import { appendStdout } from "../../../api/daemons/store";
import { solText } from "../../runtime/tools";
import { ownerProgress, type BatchRow } from "../batches";
import type { OwnerHandlers } from "../owners";
import { settleVaultSpend } from "../spend";
import { AIRDROP_OWNER } from "./service";

export async function airdropBatchSettled(tx: Sql, batch: BatchRow): Promise<void> {
  const id = batch.owner_id;
  const p = await ownerProgress(tx, AIRDROP_OWNER, id);
  if (p.open > 0) {
    await tx`UPDATE airdrops SET paid_lamports = ${p.paidLamports.toString()} WHERE id = ${id}`;
    return;
  }
  const status = p.confirmed === p.batches ? "paid" : p.confirmed === 0 ? "failed" : "partial";
  const [a] = await tx<{ mint: string; ref: string; lamports: bigint }[]>`
    UPDATE airdrops SET status = ${status}, paid_lamports = ${p.paidLamports.toString()}, completed_at = now()
    WHERE id = ${id} AND completed_at IS NULL RETURNING mint, ref, lamports`;
  if (!a) return;
  await settleVaultSpend(tx, AIRDROP_OWNER, id, p.paidLamports);
  const what = status === "paid" ? "paid" : status === "partial" ? `partly paid (${p.failed + p.expired} of ${p.batches} batches did not land)` : "not paid: no batch landed";
  await appendStdout(tx, a.mint, {
    kind: status === "failed" ? "error" : "action",
    body: `Airdrop ${a.ref} ${what}: ${solText(p.paidLamports)} of ${solText(BigInt(a.lamports))} SOL.`,
    meta: { source: "treasury", change: `airdrop.${status}`, airdropId: id, ref: a.ref, paidLamports: p.paidLamports.toString() },
  });
}

type Completed = { id: bigint; mint: string; ref: string; lamports: bigint; paid_lamports: bigint; recipients: number; status: string; completed_at: Date; slot: bigint; snapshot_id: bigint };

/** The activity row of a completed airdrop (pure). */
export function airdropActivity(a: Completed, signatures: string[], paidRecipients: number): ActivityRow {
  return {
    mint: a.mint,
    at: a.completed_at.getTime(),
    id: `airdrop:${a.mint}:${a.id}`,
    kind: "airdrop",
    text: `Airdropped ${solText(BigInt(a.paid_lamports))} SOL to ${paidRecipients} holder${paidRecipients === 1 ? "" : "s"}.`,
    body: null,
    data: JSON.stringify({
      airdropId: a.id.toString(),
      ref: a.ref,
      status: a.status,
      lamports: a.lamports.toString(),
      paidLamports: a.paid_lamports.toString(),
      recipients: paidRecipients,
      snapshotId: a.snapshot_id.toString(),
      snapshotSlot: Number(a.slot),
    }),
    links: JSON.stringify({ signatures }),
  };
}

/** Writes the activity of completed, unpublished airdrops, then marks them published. */
export async function publishAirdrops(deps: { sql: Sql; ch: ClickHouse }): Promise<number> {
  const done = await deps.sql<Completed[]>`
    SELECT a.id, a.mint, a.ref, a.lamports, a.paid_lamports, a.recipients, a.status, a.completed_at, s.slot, a.snapshot_id
    FROM airdrops a JOIN holder_snapshots s ON s.id = a.snapshot_id
    WHERE a.completed_at IS NOT NULL AND a.published_at IS NULL ORDER BY a.id LIMIT 100`;
  if (done.length === 0) return 0;
  const ids = done.map((a) => a.id.toString());
  const paid = await deps.sql<{ owner_id: string; signatures: string[]; recipients: number }[]>`
    SELECT b.owner_id, array_agg(b.signature ORDER BY b.seq) AS signatures, sum((SELECT count(*) FROM payment_transfers t WHERE t.batch_id = b.id))::int AS recipients
    FROM payment_batches b WHERE b.owner_kind = ${AIRDROP_OWNER} AND b.owner_id IN ${deps.sql(ids)} AND b.status = 'confirmed' GROUP BY b.owner_id`;
  const byId = new Map(paid.map((p) => [p.owner_id, p]));
  const rows = done.flatMap((a) => {
    const p = byId.get(a.id.toString());
    return p && BigInt(a.paid_lamports) > 0n ? [airdropActivity(a, p.signatures, p.recipients)] : [];
  });
  if (rows.length) await deps.ch.insert("activity", rows);
  await deps.sql`UPDATE airdrops SET published_at = now() WHERE id IN ${deps.sql(ids)}`;
  return rows.length;
}

export function airdropOwner(deps: { sql: Sql; ch: ClickHouse; log: Logger; beforeTurn?: () => Promise<void> }): OwnerHandlers {
  return {
    onSettled: airdropBatchSettled,
    publish: async () => void (await publishAirdrops(deps)),
    beforeTurn: deps.beforeTurn,
  };
}
