/**
 * The public shape of a contest. Lamports and token
 * atoms are decimal strings; slots are numbers. Field names are ours (the spec names the
 * contents: rules, status, committed seed slot and block, winners with prizes and payment
 * transactions, the proof); api/README.md describes each.
 */
import type { ContestRow, WinnerRow } from "./store";

/** A prize's payment: its batch's status and the batch's current transaction (null before one is built). */
export type PaymentOf = { status: string; signature: string | null };

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const num = (n: bigint | null) => (n === null ? null : Number(n));

export function contestView(c: ContestRow, winners: WinnerRow[], payments: Map<string, PaymentOf>) {
  const byRank = new Map(winners.map((w) => [w.rank, w]));
  return {
    id: c.id.toString(),
    mint: c.mint,
    kind: c.kind,
    weighting: c.weighting,
    title: c.title,
    rules: c.rules,
    status: c.status,
    statusReason: c.status_reason,
    // the agent's own approved proposal, or its operator
    source: c.proposal_id === null ? "operator" : "agent",
    proposalId: c.proposal_id?.toString() ?? null,
    budgetLamports: c.budget_lamports.toString(),
    winners: c.winners,
    splitBps: c.split_bps,
    endsAt: c.ends_at.toISOString(),
    createdAt: c.created_at.toISOString(),
    // each rank's prize; `winner` once drawn (null for a rank left unfilled: fewer holders than winners)
    prizes: c.prizes.map((lamports, rank) => {
      const w = byRank.get(rank);
      const payment = w ? payments.get(w.owner) : undefined;
      return { rank, lamports, winner: w?.owner ?? null, balance: w?.balance ?? null, payment: payment ?? null };
    }),
    // fixed at endsAt, before the seed block exists
    snapshot: c.snapshot_id === null ? null : { id: c.snapshot_id.toString(), slot: num(c.snapshot_slot), hash: c.snapshot_hash },
    // the committed slot, then the block that seeded the draw (the first produced at or after it)
    seed: c.seed_slot === null ? null : { slot: num(c.seed_slot), blockSlot: num(c.seed_block_slot), blockhash: c.blockhash },
    proof: c.proof,
    committedAt: iso(c.committed_at),
    drawnAt: iso(c.drawn_at),
    paidAt: iso(c.paid_at),
    cancelledAt: iso(c.cancelled_at),
    failedAt: iso(c.failed_at),
  };
}
