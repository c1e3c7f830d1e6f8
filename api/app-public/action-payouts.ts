/**
 * The treasury actions' payouts in the analytics overview's recentPayouts (analytics-service.ts
 * merges them with the claims and the treasury's payouts): exactly those whose feed item is
 * written, so the overview never lists a payout the feeds do not have.
 * - `airdrop`: an airdrop that paid something (`paid_lamports` > 0: `paid`, or `partial`) and
 *   whose `airdrop` item is written (`published_at`); lamports = what it paid, at = when it
 *   completed, signatures = its confirmed batches' transactions in batch order.
 * - `contest_prize`: a contest whose prizes are all paid (`paid`) and whose `contest_paid` item is
 *   written; one item per contest (as the feed's), lamports = the prizes paid, at = when the last
 *   prize landed, signatures = its prize transactions in batch order.
 * `signature` is the first transaction; `signatures` all of them. Hidden agents' are left out.
 * Two reads of the newest `limit`, each served by an index of Postgres migration 0017 (its
 * predicates are written here as literals so the planner matches them).
 */
import type { Sql } from "../../infra/postgres";
import { CONTEST_OWNER } from "../contests/service";

/** The payment batches' owner kind of airdrops (agents/treasury/airdrops: held equal by a type check in compose/treasury.ts). */
export const AIRDROP_PAYOUT_OWNER = "airdrop";

/** A row keyed as the overview's merge orders claims and payouts: `at` in unix seconds (to the millisecond), no slot. */
export type ActionPayout = {
  kind: "airdrop" | "contest_prize";
  mint: string;
  lamports: string;
  at: number;
  slot: string;
  signature: string;
  ix: number;
  inner: number;
  signatures: string[];
};

export async function newestActionPayouts(sql: Sql, o: { limit: number; hidden: readonly string[] }): Promise<ActionPayout[]> {
  const hidden = [...o.hidden];
  const rows = await sql<{ kind: ActionPayout["kind"]; mint: string; lamports: string; at: Date; signatures: string[] }[]>`
    (SELECT 'airdrop' AS kind, a.mint, a.paid_lamports::text AS lamports, a.completed_at AS at,
            ARRAY(SELECT b.signature FROM payment_batches b
                  WHERE b.owner_kind = ${AIRDROP_PAYOUT_OWNER} AND b.owner_id = a.id::text AND b.status = 'confirmed' AND b.signature IS NOT NULL
                  ORDER BY b.seq) AS signatures
     FROM airdrops a
     WHERE a.published_at IS NOT NULL AND a.paid_lamports > 0 AND NOT (a.mint = ANY (${hidden}::text[]))
     ORDER BY a.completed_at DESC, a.id DESC LIMIT ${o.limit})
    UNION ALL
    (SELECT 'contest_prize' AS kind, c.mint,
            (SELECT COALESCE(sum(b.lamports), 0)::text FROM payment_batches b
             WHERE b.owner_kind = ${CONTEST_OWNER} AND b.owner_id = c.id::text AND b.status = 'confirmed') AS lamports,
            c.paid_at AS at,
            ARRAY(SELECT b.signature FROM payment_batches b
                  WHERE b.owner_kind = ${CONTEST_OWNER} AND b.owner_id = c.id::text AND b.status = 'confirmed' AND b.signature IS NOT NULL
                  ORDER BY b.seq) AS signatures
     FROM contests c
     WHERE c.status = 'paid' AND 'contest_paid' = ANY (c.published) AND NOT (c.mint = ANY (${hidden}::text[]))
     ORDER BY c.paid_at DESC, c.id DESC LIMIT ${o.limit})`;
  return rows
    .filter((r) => r.signatures.length > 0)
    .map((r) => ({ kind: r.kind, mint: r.mint, lamports: r.lamports, at: r.at.getTime() / 1000, slot: "0", signature: r.signatures[0]!, ix: 0, inner: 0, signatures: r.signatures }));
}
