/**
 * What the payment executor tells a contest (agents/treasury/owners.ts): when its last prize
 * batch settles, in the same transaction, the contest becomes `paid` (every batch confirmed)
 * or `failed` (a batch failed for good), and its spend reservation is settled to what was
 * paid. After each executor turn its feed items are written (publish.ts).
 */
import type { Sql } from "../../infra/postgres";
import type { ClickHouse } from "../../infra/clickhouse";
import { appendStdout } from "../../api/daemons/store";
import { solText } from "../../api/contests/model";
import { CONTEST_OWNER } from "../../api/contests/service";
import { contestById } from "../../api/contests/store";
import { ownerProgress, settleVaultSpend, type BatchRow, type OwnerHandlers } from "../treasury";
import { publishContests } from "./publish";

export async function contestBatchSettled(tx: Sql, batch: BatchRow): Promise<void> {
  const p = await ownerProgress(tx, CONTEST_OWNER, batch.owner_id);
  if (p.open > 0) return;
  const c = await contestById(tx, batch.owner_id);
  if (!c || c.status !== "paying") return;
  const paid = p.confirmed === p.batches;
  const reason = paid ? "" : `${p.batches - p.confirmed} of ${p.batches} prize transaction(s) did not go through (${p.failed} failed, ${p.expired} expired); ${p.paidLamports} lamports were paid`;
  const [moved] = await tx`
    UPDATE contests SET status = ${paid ? "paid" : "failed"}, status_reason = ${reason},
      paid_at = ${paid ? tx`now()` : null}, failed_at = ${paid ? null : tx`now()`}
    WHERE id = ${c.id.toString()} AND status = 'paying' RETURNING id`;
  if (!moved) return;
  await settleVaultSpend(tx, CONTEST_OWNER, c.id.toString(), p.paidLamports);
  await appendStdout(tx, c.mint, {
    kind: paid ? "action" : "error",
    body: paid ? `Paid contest ${c.id}'s prizes: ${solText(p.paidLamports)} SOL.` : `Contest ${c.id}: ${reason}.`,
    meta: { source: "contests", contestId: c.id.toString(), change: paid ? "contest.paid" : "contest.failed", paidLamports: p.paidLamports.toString() },
  });
}

/** The executor's handlers for contests (registered in compose/treasury.ts). */
export function contestOwner(deps: { sql: Sql; ch: ClickHouse }): OwnerHandlers {
  return {
    onSettled: contestBatchSettled,
    publish: async () => {
      await publishContests(deps);
    },
  };
}
