/**
 * One run of the platform's fee distribution, on the treasury core's payment batches:
 *
 *   start    the pools worth claiming now (claims.ts), one claim batch each (owner
 *            'fee_claim', id = the run), recorded with the run in one transaction (with
 *            nothing to claim but payouts still owed, the run goes straight to paying);
 *   split    once every claim batch settled: what each confirmed claim's events say it
 *            gave, added up per agent and split (split.ts) into allocations (vault,
 *            creator) and the platform-token budget's part; then every vault and creator
 *            owed at least the minimum payout (this run's allocation plus what earlier runs
 *            could not pay yet) is paid by treasury transfer batches (owner 'fee_payout');
 *   done     once the payouts settled. A payout whose batch failed or expired for good is
 *            owed again and paid by the next run.
 *
 * `split` runs inside the transaction that settles the last claim batch (onSettled), under
 * the run's row lock, so two batches settling at once cannot both miss it; the job's tick
 * runs it too for a run whose claims settled without it (idempotent: it acts only while
 * the run is `claiming`).
 */
import type { Sql } from "../../../infra/postgres";
import type { Logger } from "../../../infra/log";
import { inTx } from "../../../api/daemons/store";
import type { BatchRow } from "../batches";
import { DEFAULT_BATCH_SIZE, enqueuePayments, ownerProgress } from "../batches";
import type { OwnerHandlers } from "../owners";
import { CLAIM_DAMM_V2, CLAIM_DBC, findClaimables, type ClaimDeps } from "./claims";
import { byAgent, owedPayouts, splitClaims, type Allocation, type Split } from "./split";

export const FEE_CLAIM = "fee_claim";
export const FEE_PAYOUT = "fee_payout";

/**
 * Starts a run when none is open and some pool is worth claiming, or, with nothing to claim,
 * when earlier runs still owe a payout that reaches the minimum (the run then only pays);
 * its id, or null.
 */
export async function startRun(deps: ClaimDeps & { log: Logger; split: Split }, treasury: string): Promise<bigint | null> {
  const [open] = await deps.sql`SELECT id FROM fee_distributions WHERE status <> 'done'`;
  if (open) return null;
  const claimables = await findClaimables(deps, treasury);
  if (claimables.length === 0 && owedPayouts(await owed(deps.sql)).length === 0) {
    deps.log.info("fee distribution: no pool's platform fees are worth claiming yet", { treasury });
    return null;
  }
  return inTx(deps.sql, async (tx) => {
    const [run] = await tx<{ id: bigint }[]>`INSERT INTO fee_distributions (treasury) VALUES (${treasury}) ON CONFLICT DO NOTHING RETURNING id`;
    if (!run) return null; // another process started one just now
    if (claimables.length === 0) {
      await splitRun(tx, run.id.toString(), deps.split);
      deps.log.info("fee distribution: paying what earlier runs owe", { run: run.id.toString(), treasury });
      return run.id;
    }
    const ids = await enqueuePayments(tx, {
      ownerKind: FEE_CLAIM,
      ownerId: run.id.toString(),
      payer: { kind: "treasury", address: treasury },
      custom: claimables.map((c) =>
        c.venue === "dbc"
          ? { builder: CLAIM_DBC, params: { pool: c.pool }, lamports: 0n }
          : { builder: CLAIM_DAMM_V2, params: { pool: c.pool, position: c.position, positionNftAccount: c.positionNftAccount }, lamports: 0n },
      ),
    });
    const rows = claimables.map((c, i) => ({ run_id: run.id.toString(), pool: c.pool, venue: c.venue, mint: c.mint, expected_lamports: c.lamports.toString(), batch_id: ids[i]!.toString() }));
    await tx`INSERT INTO fee_distribution_claims ${tx(rows, "run_id", "pool", "venue", "mint", "expected_lamports", "batch_id")}`;
    deps.log.info("fee distribution: claiming", { run: run.id.toString(), pools: claimables.length, treasury });
    return run.id;
  });
}

type RunRow = { id: bigint; treasury: string; status: string };
const lockRun = async (tx: Sql, id: string) => (await tx<RunRow[]>`SELECT id, treasury, status FROM fee_distributions WHERE id = ${id} FOR UPDATE`)[0] ?? null;

/** What each vault and creator is owed over all runs: allocated less what payouts not failed or expired carry. */
async function owed(tx: Sql): Promise<Allocation[]> {
  const rows = await tx<{ kind: "vault" | "creator"; mint: string; recipient: string; owed: string }[]>`
    SELECT a.kind, a.mint, a.recipient, (a.lamports - COALESCE(p.lamports, 0))::text AS owed
    FROM (SELECT kind, mint, recipient, sum(lamports) AS lamports FROM fee_allocations GROUP BY kind, mint, recipient) a
    LEFT JOIN (
      SELECT f.kind, f.mint, f.recipient, sum(f.lamports) AS lamports FROM fee_payouts f JOIN payment_batches b ON b.id = f.batch_id
      WHERE b.status NOT IN ('failed', 'expired') GROUP BY f.kind, f.mint, f.recipient
    ) p ON p.kind = a.kind AND p.mint = a.mint AND p.recipient = a.recipient
    WHERE a.lamports > COALESCE(p.lamports, 0)
    ORDER BY a.mint, a.kind`;
  return rows.map((r) => ({ kind: r.kind, mint: r.mint, recipient: r.recipient, lamports: BigInt(r.owed) }));
}

/** Pays everything owed that reaches the minimum payout, in transfer batches from the treasury; how many payouts. */
async function payOwed(tx: Sql, run: RunRow): Promise<number> {
  const payouts = owedPayouts(await owed(tx));
  if (payouts.length === 0) return 0;
  const ids = await enqueuePayments(tx, {
    ownerKind: FEE_PAYOUT,
    ownerId: run.id.toString(),
    payer: { kind: "treasury", address: run.treasury },
    transfers: payouts.map((p) => ({ recipient: p.recipient, lamports: p.lamports })),
    batchSize: DEFAULT_BATCH_SIZE,
  });
  // enqueuePayments cuts the transfers into batches of DEFAULT_BATCH_SIZE, in order
  const rows = payouts.map((p, i) => ({
    run_id: run.id.toString(), kind: p.kind, mint: p.mint, recipient: p.recipient, lamports: p.lamports.toString(), batch_id: ids[Math.floor(i / DEFAULT_BATCH_SIZE)]!.toString(),
  }));
  await tx`INSERT INTO fee_payouts ${tx(rows, "run_id", "kind", "mint", "recipient", "lamports", "batch_id")}`;
  return payouts.length;
}

/**
 * Splits a run whose claims have all settled and queues its payouts (inside `tx`); false
 * while claims are open or when the run is past claiming.
 */
export async function splitRun(tx: Sql, runId: string, split: Split): Promise<boolean> {
  const run = await lockRun(tx, runId);
  if (!run || run.status !== "claiming") return false;
  if ((await ownerProgress(tx, FEE_CLAIM, runId)).open > 0) return false;
  // what each confirmed claim's events said it gave (a failed or expired claim gave nothing)
  await tx`
    UPDATE fee_distribution_claims c SET
      claimed_lamports = CASE WHEN b.status = 'confirmed' THEN COALESCE((b.result->>'claimedLamports')::numeric, 0) ELSE 0 END,
      claimed_atoms = CASE WHEN b.status = 'confirmed' THEN COALESCE((b.result->>'claimedAtoms')::numeric, 0) ELSE 0 END
    FROM payment_batches b WHERE b.id = c.batch_id AND c.run_id = ${runId}`;
  const claims = await tx<{ mint: string; vault: string; creator: string; lamports: string }[]>`
    SELECT c.mint, a.vault, a.creator, c.claimed_lamports::text AS lamports
    FROM fee_distribution_claims c JOIN agents a ON a.mint = c.mint WHERE c.run_id = ${runId} ORDER BY c.mint, c.pool`;
  const s = splitClaims(byAgent(claims.map((c) => ({ ...c, lamports: BigInt(c.lamports) }))), split);
  if (s.allocations.length) {
    const rows = s.allocations.map((a) => ({ run_id: runId, kind: a.kind, mint: a.mint, recipient: a.recipient, lamports: a.lamports.toString() }));
    await tx`INSERT INTO fee_allocations ${tx(rows, "run_id", "kind", "mint", "recipient", "lamports")}`;
  }
  const paying = (await payOwed(tx, run)) > 0;
  await tx`
    UPDATE fee_distributions SET split_vault = ${split.vault}, split_creator = ${split.creator}, split_platform = ${split.platformBurn},
      claimed_lamports = ${s.total.toString()}, platform_lamports = ${s.platform.toString()}, split_at = now(),
      status = ${paying ? "paying" : "done"}, finished_at = ${paying ? null : tx`now()`}
    WHERE id = ${runId}`;
  return true;
}

/** Ends a paying run once its payouts settled (inside `tx`). */
export async function finishRun(tx: Sql, runId: string): Promise<boolean> {
  const run = await lockRun(tx, runId);
  if (!run || run.status !== "paying") return false;
  if ((await ownerProgress(tx, FEE_PAYOUT, runId)).open > 0) return false;
  await tx`UPDATE fee_distributions SET status = 'done', finished_at = now() WHERE id = ${runId}`;
  return true;
}

/** Moves open runs whose batches settled without their handler (the job's tick). */
export async function advanceRuns(sql: Sql, split: Split): Promise<void> {
  const runs = await sql<{ id: bigint; status: string }[]>`SELECT id, status FROM fee_distributions WHERE status <> 'done' ORDER BY id`;
  for (const r of runs) await inTx(sql, (tx) => (r.status === "claiming" ? splitRun(tx, r.id.toString(), split) : finishRun(tx, r.id.toString())));
}

export const feeClaimOwner = (split: Split): OwnerHandlers => ({ onSettled: (tx: Sql, b: BatchRow) => splitRun(tx, b.owner_id, split).then(() => undefined) });
export const feePayoutOwner: OwnerHandlers = { onSettled: (tx: Sql, b: BatchRow) => finishRun(tx, b.owner_id).then(() => undefined) };
