/**
 * An agent's buyback of its own coin (issue 14): what `POST /v1/daemons/:mint/buybacks` and
 * an approved `buyback` proposal both run, and the public list.
 *
 * A request is refused before anything is written when the ref was used for another
 * request (409 REF_REUSED; the same request again answers its first answer, `queued:
 * false`), the platform cannot sign for the vault (409 VAULT_KEY_MISSING), the coin does
 * not trade against SOL (409 NOT_SOL_QUOTED), its curve is full and waits to migrate
 * (409 CURVE_COMPLETE), or its pool cannot fill the amount (400 on `lamports`). Then, in
 * one Postgres transaction: the record, the spend reserved against the vault's claimed
 * fees (409 NOT_COVERED: nothing written), the swap's payment batch, and a stdout line.
 * The executor runs the swap; settle.ts takes it from there (burn, record, feed item).
 */
import { randomUUID } from "node:crypto";
import type { ClickHouse } from "../../../infra/clickhouse";
import type { Sql } from "../../../infra/postgres";
import type { Logger } from "../../../infra/log";
import { ApiError, notFound, validationError } from "../../../api/errors";
import { coinPools, decimalsOf, quoteAt, snapshotOf, type PoolDeps } from "../../../api/pools/service";
import { BUYBACK_MAX_LAMPORTS, type BuybackActions, type BuybackRequest, type BuybacksPage } from "../../../api/treasury/buybacks";
import { appendStdout, inTx } from "../../../api/daemons/store";
import { solText } from "../../runtime/tools";
import { quotedInSol, type Venue } from "../../swaps/buy";
import { claimedFeesOf, reserveVaultSpend } from "../spend";
import { enqueuePayments } from "../batches";
import { holdsVaultKey } from "../signers";
import { notCovered, refReused, vaultKeyMissing } from "../errors";

export const BUYBACK = "buyback";
export const SWAP_BUILDER = "buyback.swap";
export const BURN_BUILDER = "buyback.burn";

export type BuybackDeps = { sql: Sql; ch: ClickHouse; pools: PoolDeps; log: Logger };
export type BuybackOrigin = { requestedBy: string; proposalId?: bigint | null };

export const notSolQuoted = (mint: string) =>
  new ApiError(409, "NOT_SOL_QUOTED", `${mint} trades against a stock, not SOL: a buyback spends the vault's SOL`);

type Row = {
  id: bigint; mint: string; ref: string; requested_by: string; proposal_id: bigint | null; lamports: bigint; slippage_bps: number; burn: boolean;
  status: "queued" | "burning" | "done" | "failed" | "expired"; venue: Venue | null; pool: string | null; minimum_out: string | null; swap_signature: string | null; tokens_received: string | null;
  burn_signature: string | null; tokens_burned: string | null; error: string | null; created_at: Date; completed_at: Date | null;
};
const COLUMNS = `id, mint, ref, requested_by, proposal_id, lamports, slippage_bps, burn, status, venue, pool, minimum_out::text, swap_signature,
  tokens_received::text, burn_signature, tokens_burned::text, error, created_at, completed_at`;

const sameRequest = (r: Row, b: BuybackRequest) => BigInt(r.lamports) === b.lamports && r.slippage_bps === b.slippageBps && r.burn === b.burn;

async function byRef(sql: Sql, mint: string, ref: string): Promise<Row | null> {
  const [r] = await sql<Row[]>`SELECT ${sql.unsafe(COLUMNS)} FROM buybacks WHERE mint = ${mint} AND ref = ${ref}`;
  return r ?? null;
}

/** The answer for a ref already used: its first answer again, or 409 for another request. */
function replay(row: Row, b: BuybackRequest, ref: string) {
  if (!sameRequest(row, b)) throw refReused(ref);
  return { ref, queued: false, id: row.id };
}

/** Refuses what the swap itself would refuse, on the coin's pool as it is now. */
async function checkPool(deps: BuybackDeps, mint: string, b: BuybackRequest): Promise<void> {
  const coin = await coinPools(deps.sql, mint);
  const s = await snapshotOf(deps.pools, coin);
  if (!quotedInSol(s)) throw notSolQuoted(mint);
  try {
    quoteAt(s, mint, decimalsOf(deps.pools, coin, s), { side: "buy", amount: b.lamports, slippageBps: b.slippageBps });
  } catch (e) {
    // the quote names its own query field; here it is the body's `lamports`
    if (e instanceof ApiError && e.code === "VALIDATION_ERROR") throw validationError([{ field: "lamports", message: "is more than the pool can fill before its curve completes; buy less" }]);
    throw e;
  }
}

export async function requestBuyback(deps: BuybackDeps, mint: string, b: BuybackRequest, origin: BuybackOrigin): Promise<{ ref: string; queued: boolean; id: bigint }> {
  // the route's schema caps it too; a proposal comes here straight
  if (b.lamports <= 0n || b.lamports > BUYBACK_MAX_LAMPORTS) throw validationError([{ field: "lamports", message: `a buyback is 1 to ${BUYBACK_MAX_LAMPORTS} lamports (0.5 SOL)` }]);
  const ref = b.ref ?? `bb-${randomUUID()}`;
  const known = await byRef(deps.sql, mint, ref);
  if (known) return replay(known, b, ref);
  const [agent] = await deps.sql<{ vault: string }[]>`SELECT vault FROM agents WHERE mint = ${mint}`;
  if (!agent) throw notFound(`no agent with mint ${mint}`);
  if (!(await holdsVaultKey(deps.sql, agent.vault))) throw vaultKeyMissing(mint);
  await checkPool(deps, mint, b);
  const claimed = (await claimedFeesOf(deps.ch, { mint, vault: agent.vault, solQuoted: true })).totalLamports;
  return inTx(deps.sql, async (tx) => {
    const [row] = await tx<{ id: bigint }[]>`
      INSERT INTO buybacks (mint, ref, requested_by, proposal_id, lamports, slippage_bps, burn)
      VALUES (${mint}, ${ref}, ${origin.requestedBy}, ${origin.proposalId?.toString() ?? null}, ${b.lamports.toString()}, ${b.slippageBps}, ${b.burn})
      ON CONFLICT (mint, ref) DO NOTHING RETURNING id`;
    // the same ref in a request that got here first
    if (!row) return replay((await byRef(tx, mint, ref))!, b, ref);
    const id = row.id.toString();
    const reservation = await reserveVaultSpend(tx, { mint, vault: agent.vault, ownerKind: BUYBACK, ownerId: id, lamports: b.lamports, claimedLamports: claimed });
    if (!reservation.ok) throw notCovered(b.lamports, reservation);
    await enqueuePayments(tx, {
      ownerKind: BUYBACK,
      ownerId: id,
      payer: { kind: "vault", mint },
      custom: [{ builder: SWAP_BUILDER, params: { mint, lamports: b.lamports.toString(), slippageBps: b.slippageBps }, lamports: b.lamports }],
    });
    const who = origin.proposalId ? `its approved proposal ${origin.proposalId}` : "the operator";
    await appendStdout(tx, mint, {
      kind: "action",
      body: `A buyback of ${solText(b.lamports)} SOL${b.burn ? ", burning what it buys," : ""} was queued for ${who}.`,
      meta: { source: "treasury", action: BUYBACK, buybackId: id, ref, lamports: b.lamports.toString(), burn: b.burn },
    });
    return { ref, queued: true, id: row.id };
  });
}

/** A buyback as the public list shows it; amounts are decimal strings (lamports, token atoms). */
export function buybackView(r: Row) {
  return {
    id: r.id.toString(),
    ref: r.ref,
    lamports: r.lamports.toString(),
    slippageBps: r.slippage_bps,
    burn: r.burn,
    venue: r.venue,
    pool: r.pool,
    status: r.status,
    transaction: r.swap_signature,
    minimumOut: r.minimum_out,
    tokensReceived: r.tokens_received,
    burnTransaction: r.burn_signature,
    tokensBurned: r.burn ? r.tokens_burned : null,
    requestedBy: r.proposal_id === null ? ("operator" as const) : ("agent" as const),
    proposalId: r.proposal_id?.toString() ?? null,
    error: r.error,
    createdAt: r.created_at.toISOString(),
    completedAt: r.completed_at?.toISOString() ?? null,
  };
}

/** GET /daemons/:mint/buybacks: newest first; 404 for an unknown or hidden agent. */
export async function listBuybacks(sql: Sql, mint: string, q: BuybacksPage) {
  const [a] = await sql`SELECT 1 FROM agents WHERE mint = ${mint} AND NOT hidden`;
  if (!a) throw notFound(`no agent with mint ${mint}`);
  const rows = await sql<Row[]>`
    SELECT ${sql.unsafe(COLUMNS)} FROM buybacks WHERE mint = ${mint} ${q.cursor ? sql`AND id < ${q.cursor}` : sql``}
    ORDER BY id DESC LIMIT ${q.limit + 1}`;
  const page = rows.slice(0, q.limit);
  return { items: page.map(buybackView), nextCursor: rows.length > q.limit ? page.at(-1)!.id.toString() : null };
}

/** The routes' actions (api/treasury/buybacks.ts), built by the composition root. */
export const buybackActions = (deps: BuybackDeps): BuybackActions => ({
  request: async (agent, body, requestedBy) => {
    const { ref, queued } = await requestBuyback(deps, agent.mint, body, { requestedBy });
    return { ref, queued };
  },
  list: (mint, page) => listBuybacks(deps.sql, mint, page),
});
