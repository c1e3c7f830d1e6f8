/**
 * TEST HELPER: what the payment executor does when one action's batches land, without a chain
 * and without touching anyone else's batches (the executor's turn takes any due batch, and test
 * files share engines). Each queued batch of the owner goes through the real ledger (ledger.ts):
 * leased, recorded with a transaction (random bytes under a random signature), counted sent,
 * then settled confirmed with `result` (what a builder's afterConfirmed would say), its owner's
 * handler running in the settling transaction. Batches the handlers queue meanwhile (a
 * buyback's burn after its swap) land too.
 */
import { randomBytes, randomUUID } from "node:crypto";
import bs58 from "bs58";
import type { Sql } from "../../../infra/postgres";
import { BATCH_COLUMNS, type BatchRow } from "../batches";
import { markSending, markSent, record, settle, type Claimed } from "../ledger";
import type { OwnerRegistry } from "../owners";

export async function landBatchesOf(
  sql: Sql,
  owners: OwnerRegistry,
  owner: { kind: string; id: string },
  result: (batch: BatchRow) => Record<string, unknown> = () => ({}),
): Promise<BatchRow[]> {
  const landed: BatchRow[] = [];
  for (;;) {
    const token = randomUUID();
    const batches = await sql<Claimed[]>`
      UPDATE payment_batches SET lease_token = ${token}, lease_until = now() + interval '1 minute'
      WHERE owner_kind = ${owner.kind} AND owner_id = ${owner.id} AND status = 'queued'
      RETURNING ${sql.unsafe(BATCH_COLUMNS)}, build_failures, lease_token`;
    if (batches.length === 0) return landed;
    for (const b of batches) {
      const signature = bs58.encode(randomBytes(64));
      const tx = { signature, tx: randomBytes(160), blockhash: bs58.encode(randomBytes(32)), lastValidBlockHeight: 1_000, result: null };
      if (!(await record(sql, b, tx))) throw new Error(`batch ${b.id} could not be recorded`);
      await markSending(sql, signature);
      await markSent(sql, b, signature);
      const row = await settle(sql, owners, b, { status: "confirmed", result: result(b) });
      if (!row) throw new Error(`batch ${b.id} could not be settled`);
      landed.push(row);
    }
  }
}
