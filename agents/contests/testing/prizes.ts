/**
 * TEST HELPER: what the payment executor does when a contest's prize batches land, without a chain:
 * each batch confirmed with `signature(seq)` and its contest told (settle.ts), one transaction per batch.
 */
import type { Sql } from "../../../infra/postgres";
import { inTx } from "../../../api/daemons/store";
import { CONTEST_OWNER } from "../../../api/contests/service";
import type { BatchRow } from "../../treasury";
import { contestBatchSettled } from "../settle";

export async function confirmPrizeBatches(sql: Sql, contestId: string, signature: (seq: number) => string): Promise<void> {
  const batches = await sql<{ id: bigint; seq: number }[]>`SELECT id, seq FROM payment_batches WHERE owner_kind = ${CONTEST_OWNER} AND owner_id = ${contestId} ORDER BY seq`;
  for (const b of batches)
    await inTx(sql, async (tx) => {
      const [row] = await tx<BatchRow[]>`UPDATE payment_batches SET status = 'confirmed', signature = ${signature(b.seq)}, settled_at = now() WHERE id = ${b.id.toString()} RETURNING *`;
      await contestBatchSettled(tx, row!);
    });
}
