/**
 * The contest job's writes (sql/postgres/0015_contests.sql), each a compare-and-set on the
 * contest's status so a move is made once whatever runs twice. A draw is one transaction:
 * winners, proof, the move to `paying` and the prize batches (agents/treasury/batches.ts)
 * commit together, so a prize is queued exactly once and never without its draw.
 */
import type { Sql } from "../../infra/postgres";
import { appendStdout, inTx } from "../../api/daemons/store";
import { CONTEST_OWNER } from "../../api/contests/service";
import { solText } from "../../api/contests/model";
import type { ContestRow } from "../../api/contests/store";
import { enqueuePayments, releaseVaultSpend } from "../treasury";
import type { DrawProof, Holder } from "./draw";

const line = (c: ContestRow, body: string, meta: Record<string, unknown> = {}) => ({
  kind: "action" as const,
  body,
  meta: { source: "contests", contestId: c.id.toString(), ...meta },
});

export type FixedSnapshot = { id: bigint; slot: number; snapshotHash: string; holders: number };

/** open → drawing: the raffle's snapshot is fixed and it commits to `seedSlot`. */
export async function commitSeed(sql: Sql, c: ContestRow, snap: FixedSnapshot, seedSlot: number): Promise<boolean> {
  return inTx(sql, async (tx) => {
    const [moved] = await tx`
      UPDATE contests SET status = 'drawing', snapshot_id = ${snap.id.toString()}, snapshot_slot = ${snap.slot}, snapshot_hash = ${snap.snapshotHash},
        seed_slot = ${seedSlot}, committed_at = now()
      WHERE id = ${c.id.toString()} AND status = 'open' RETURNING id`;
    if (!moved) return false;
    await appendStdout(tx, c.mint, line(c, `Contest ${c.id} ended: ${snap.holders} holder(s) fixed at slot ${snap.slot}; the draw is seeded by the first block at or after slot ${seedSlot}.`, { change: "contest.drawing", seedSlot, snapshotSlot: snap.slot }));
    return true;
  });
}

export type DrawOutcome = { snap: FixedSnapshot; proof: DrawProof; winners: Holder[]; seed?: { blockSlot: number; blockhash: string } };

/**
 * `from` → paying with the winners and their prize batches, or → failed when nobody could win
 * (its reservation released). The snapshot is written too (top_holders move from open directly).
 */
export async function recordDraw(sql: Sql, c: ContestRow, from: "open" | "drawing", d: DrawOutcome): Promise<boolean> {
  const prizes = c.prizes.map(BigInt);
  const won = d.winners.map((w, rank) => ({ rank, owner: w.owner, balance: w.amount, lamports: prizes[rank]! }));
  return inTx(sql, async (tx) => {
    const failed = won.length === 0;
    const [moved] = await tx`
      UPDATE contests SET status = ${failed ? "failed" : "paying"}, status_reason = ${failed ? "no holder had a balance at the snapshot: nobody to draw" : ""},
        snapshot_id = ${d.snap.id.toString()}, snapshot_slot = ${d.snap.slot}, snapshot_hash = ${d.snap.snapshotHash},
        committed_at = COALESCE(committed_at, now()), seed_block_slot = ${d.seed?.blockSlot ?? null}, blockhash = ${d.seed?.blockhash ?? null},
        proof = ${tx.json(d.proof as never)}, drawn_at = now(), failed_at = ${failed ? tx`now()` : null}
      WHERE id = ${c.id.toString()} AND status = ${from} RETURNING id`;
    if (!moved) return false;
    if (failed) {
      await releaseVaultSpend(tx, CONTEST_OWNER, c.id.toString());
      await appendStdout(tx, c.mint, line(c, `Contest ${c.id} could not be drawn: no holder had a balance at slot ${d.snap.slot}. Its budget is released.`, { change: "contest.failed" }));
      return true;
    }
    const rows = won.map((w) => ({ contest_id: c.id.toString(), rank: w.rank, owner: w.owner, balance: w.balance.toString(), lamports: w.lamports.toString() }));
    await tx`INSERT INTO contest_winners ${tx(rows, "contest_id", "rank", "owner", "balance", "lamports")}`;
    await enqueuePayments(tx, {
      ownerKind: CONTEST_OWNER,
      ownerId: c.id.toString(),
      payer: { kind: "vault", mint: c.mint },
      transfers: won.map((w) => ({ recipient: w.owner, lamports: w.lamports })),
    });
    const total = won.reduce((s, w) => s + w.lamports, 0n);
    await appendStdout(tx, c.mint, line(c, `Drew contest ${c.id}: ${won.length} winner(s); paying ${solText(total)} SOL in prizes.`, { change: "contest.drawn", winners: won.map((w) => w.owner) }));
    return true;
  });
}
