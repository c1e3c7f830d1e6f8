/**
 * What happens when a buyback's batch settles (the executor calls `onSettled` inside the
 * transaction that settles the batch; no network here):
 *
 * - the swap confirmed: the vault's reservation is settled to the lamports swapped; venue,
 *   pool, minimum out, signature and tokens received are recorded; with `burn` (and tokens
 *   received) the burn's batch is queued (`burning`), else the buyback is `done`;
 * - the swap failed or expired for good: the reservation is released, the buyback ends
 *   `failed` / `expired` with the batch's error;
 * - the burn confirmed: tokens burned and signature recorded, `done`; it failed: `failed`
 *   (what was bought stays in the vault, and the record says so).
 * Each end writes a stdout line in the same transaction. `publish` then writes one
 * `buyback` activity row per finished buyback (the Data API's activity and the feeds), id
 * `buyback:<mint>:<id>` so a repeated write replaces itself, and marks it published.
 */
import type { ClickHouse } from "../../../infra/clickhouse";
import type { Sql } from "../../../infra/postgres";
import type { ActivityRow } from "../../../pipelines/rows";
import { formatUnits } from "../../../ingest/contract/market-math";
import { appendStdout } from "../../../api/daemons/store";
import { solText } from "../../runtime/tools";
import type { BatchRow } from "../batches";
import { enqueuePayments } from "../batches";
import { releaseVaultSpend, settleVaultSpend } from "../spend";
import type { OwnerHandlers } from "../owners";
import { BUYBACK, BURN_BUILDER, SWAP_BUILDER } from "./service";

type Locked = { id: bigint; mint: string; lamports: bigint; burn: boolean; status: string; symbol: string };
const text = (r: Record<string, unknown> | null, key: string) => (r && (typeof r[key] === "string" || typeof r[key] === "number") ? String(r[key]) : null);

async function end(tx: Sql, b: Locked, status: "done" | "failed" | "expired", error: string | null, line: string) {
  await tx`UPDATE buybacks SET status = ${status}, error = ${error}, completed_at = now(), updated_at = now() WHERE id = ${b.id.toString()}`;
  await appendStdout(tx, b.mint, { kind: status === "done" ? "action" : "error", body: line, meta: { source: "treasury", action: BUYBACK, buybackId: b.id.toString(), status } });
}

export async function settleBuybackBatch(tx: Sql, batch: BatchRow): Promise<void> {
  const [b] = await tx<Locked[]>`
    SELECT b.id, b.mint, b.lamports, b.burn, b.status, a.symbol FROM buybacks b JOIN agents a ON a.mint = b.mint WHERE b.id = ${batch.owner_id} FOR UPDATE OF b`;
  if (!b || b.status === "done" || b.status === "failed" || b.status === "expired") return;
  const r = batch.result;
  const sol = solText(BigInt(b.lamports));
  const coin = (atoms: string) => `${formatUnits(BigInt(atoms), Number(text(r, "decimals") ?? text(batch.params, "decimals") ?? 6))}${b.symbol ? ` $${b.symbol}` : " of the coin"}`;
  if (batch.builder === SWAP_BUILDER) {
    if (batch.status !== "confirmed") {
      await releaseVaultSpend(tx, BUYBACK, b.id.toString());
      const why = batch.error ?? (batch.status === "expired" ? "the swap could not land in time" : "the swap failed");
      return end(tx, b, batch.status === "expired" ? "expired" : "failed", why, `The buyback of ${sol} SOL did not go through: ${why}. Nothing was spent.`);
    }
    const received = BigInt(text(r, "tokensReceived") ?? "0");
    await settleVaultSpend(tx, BUYBACK, b.id.toString(), BigInt(b.lamports));
    await tx`
      UPDATE buybacks SET venue = ${text(r, "venue")}, pool = ${text(r, "pool")}, minimum_out = ${text(r, "minimumOut")}, swap_signature = ${batch.signature},
        tokens_received = ${received.toString()}, updated_at = now()
      WHERE id = ${b.id.toString()}`;
    if (b.burn && received > 0n) {
      await enqueuePayments(tx, {
        ownerKind: BUYBACK,
        ownerId: b.id.toString(),
        payer: { kind: "vault", mint: b.mint },
        custom: [{ builder: BURN_BUILDER, params: { mint: b.mint, amount: received.toString(), decimals: Number(text(r, "decimals")), tokenProgram: text(r, "tokenProgram") }, lamports: 0n }],
      });
      await tx`UPDATE buybacks SET status = 'burning' WHERE id = ${b.id.toString()}`;
      return;
    }
    return end(tx, b, "done", null, `Bought back ${coin(received.toString())} for ${sol} SOL.`);
  }
  if (batch.builder === BURN_BUILDER) {
    if (batch.status !== "confirmed") {
      const why = `the burn failed (${batch.error ?? batch.status}); what was bought stays in the vault`;
      return end(tx, b, "failed", why, `The buyback of ${sol} SOL bought the coin, but ${why}.`);
    }
    const burned = text(r, "tokensBurned") ?? text(batch.params, "amount") ?? "0";
    await tx`UPDATE buybacks SET burn_signature = ${batch.signature}, tokens_burned = ${burned}, updated_at = now() WHERE id = ${b.id.toString()}`;
    return end(tx, b, "done", null, `Bought back and burned ${coin(burned)} for ${sol} SOL.`);
  }
}

type Finished = {
  id: bigint; mint: string; lamports: bigint; burn: boolean; venue: string | null; swap_signature: string; burn_signature: string | null;
  tokens_received: string; tokens_burned: string | null; completed_at: Date; symbol: string; decimals: number | null;
};

/** The activity row of a finished buyback (kind `buyback`: the feeds and the Data API's activity). */
export function buybackActivity(f: Finished): ActivityRow {
  const dec = f.decimals ?? 6;
  const sym = f.symbol ? ` $${f.symbol}` : "";
  const sol = `${formatUnits(BigInt(f.lamports), 9)} SOL`;
  const bought = formatUnits(BigInt(f.tokens_received), dec);
  const burned = f.burn_signature ? formatUnits(BigInt(f.tokens_burned ?? "0"), dec) : null;
  return {
    mint: f.mint,
    at: f.completed_at.getTime(),
    id: `buyback:${f.mint}:${f.id}`,
    kind: "buyback",
    text: burned ? `The agent bought back ${bought}${sym} for ${sol} and burned ${burned}.` : `The agent bought back ${bought}${sym} for ${sol}.`,
    body: null,
    data: JSON.stringify({ buybackId: f.id.toString(), lamports: f.lamports.toString(), venue: f.venue, tokensReceived: f.tokens_received, tokensBurned: f.burn_signature ? f.tokens_burned : null }),
    links: JSON.stringify(f.burn_signature ? { signature: f.swap_signature, signatures: [f.swap_signature, f.burn_signature] } : { signature: f.swap_signature }),
  };
}

/** Writes the activity of buybacks that finished and are not published yet, then marks them (a crash between writes them again). */
export async function publishBuybacks(sql: Sql, ch: ClickHouse): Promise<number> {
  const rows = await sql<(Finished & { status: string })[]>`
    SELECT b.id, b.mint, b.lamports, b.burn, b.venue, b.swap_signature, b.burn_signature, b.tokens_received::text, b.tokens_burned::text,
      b.completed_at, b.status, a.symbol,
      (SELECT (p.result->>'decimals')::int FROM payment_batches p WHERE p.owner_kind = ${BUYBACK} AND p.owner_id = b.id::text AND p.builder = ${SWAP_BUILDER} LIMIT 1) AS decimals
    FROM buybacks b JOIN agents a ON a.mint = b.mint
    WHERE b.completed_at IS NOT NULL AND b.published_at IS NULL ORDER BY b.id LIMIT 500`;
  if (rows.length === 0) return 0;
  // a buyback that bought nothing has no feed item
  const items = rows.filter((r) => r.swap_signature !== null && r.tokens_received !== null).map(buybackActivity);
  if (items.length) await ch.insert("activity", items);
  await sql`UPDATE buybacks SET published_at = now() WHERE id IN ${sql(rows.map((r) => r.id.toString()))}`;
  return items.length;
}

export const buybackOwner = (deps: { sql: Sql; ch: ClickHouse }): OwnerHandlers => ({
  onSettled: settleBuybackBatch,
  publish: async () => void (await publishBuybacks(deps.sql, deps.ch)),
});
