/**
 * A contest's feed items and Data API activity: `contest_opened` (when it was made),
 * `contest_drawn` (its winners and seed, when drawn) and `contest_paid` (its prize
 * transactions, when every prize is paid). Rows of the ClickHouse `activity` table, which the
 * feeds and /v1/public/activity read; ids and times come from the record, so writing one again
 * after a crash replaces it (ReplacingMergeTree on mint, at, id). A contest remembers what it
 * published only after the insert.
 */
import type { Sql } from "../../infra/postgres";
import type { ClickHouse } from "../../infra/clickhouse";
import type { ActivityRow } from "../../pipelines/rows";
import { solText } from "../../api/contests/model";
import { CONTEST_OWNER } from "../../api/contests/service";
import { contestsToPublish, winnersOf, type ContestRow, type WinnerRow } from "../../api/contests/store";

export const CONTEST_FEED_KINDS = ["contest_opened", "contest_drawn", "contest_paid"] as const;
type FeedKind = (typeof CONTEST_FEED_KINDS)[number];

const short = (address: string) => `${address.slice(0, 4)}…${address.slice(-4)}`;

/** The feed items a contest is due and has not published yet. */
export function dueItems(c: ContestRow): FeedKind[] {
  const due: FeedKind[] = ["contest_opened"];
  if (c.drawn_at) due.push("contest_drawn");
  if (c.status === "paid") due.push("contest_paid");
  return due.filter((k) => !c.published.includes(k));
}

export function contestItem(kind: FeedKind, c: ContestRow, winners: WinnerRow[], signatures: string[]): ActivityRow {
  const id = `${kind}:${c.mint}:${c.id}`;
  const base = { mint: c.mint, id, kind, links: "{}" };
  const budget = `${solText(c.budget_lamports)} SOL`;
  const won = winners.map((w) => ({ rank: w.rank, owner: w.owner, lamports: w.lamports.toString() }));
  switch (kind) {
    case "contest_opened": {
      const text = `Contest "${c.title}" opened: ${budget} for ${c.winners} winner(s), ends ${c.ends_at.toISOString()}.`;
      return {
        ...base, at: c.created_at.getTime(), text,
        body: c.rules ? `${text}\n\nRules: ${c.rules}` : text,
        data: JSON.stringify({ contestId: c.id.toString(), kind: c.kind, weighting: c.weighting, title: c.title, budgetLamports: c.budget_lamports.toString(), winners: c.winners, endsAt: c.ends_at.toISOString() }),
      };
    }
    case "contest_drawn": {
      const text = won.length ? `Contest "${c.title}" drawn: ${won.map((w) => short(w.owner)).join(", ")}.` : `Contest "${c.title}" drawn: nobody held the coin.`;
      return {
        ...base, at: c.drawn_at!.getTime(), text, body: text,
        data: JSON.stringify({
          contestId: c.id.toString(), winners: won, seedSlot: c.seed_slot === null ? null : Number(c.seed_slot),
          seedBlockSlot: c.seed_block_slot === null ? null : Number(c.seed_block_slot), blockhash: c.blockhash,
          snapshotSlot: c.snapshot_slot === null ? null : Number(c.snapshot_slot), snapshotHash: c.snapshot_hash,
        }),
      };
    }
    case "contest_paid": {
      const paid = winners.reduce((s, w) => s + w.lamports, 0n);
      const text = `Contest "${c.title}" paid ${solText(paid)} SOL to ${winners.length} winner(s).`;
      return {
        ...base, at: c.paid_at!.getTime(), text, body: text,
        data: JSON.stringify({ contestId: c.id.toString(), paidLamports: paid.toString(), winners: won }),
        links: JSON.stringify({ signatures }),
      };
    }
  }
}

/** Writes every due item of contests that have some (at most `limit` contests a turn); the number written. */
export async function publishContests(deps: { sql: Sql; ch: ClickHouse }, limit = 100): Promise<number> {
  const due = (await contestsToPublish(deps.sql, limit)).map((c) => ({ c, kinds: dueItems(c) })).filter((d) => d.kinds.length);
  if (due.length === 0) return 0;
  const ids = due.map((d) => d.c.id);
  const [winners, signatures] = await Promise.all([winnersOf(deps.sql, ids), prizeSignatures(deps.sql, ids)]);
  const rows = due.flatMap((d) => d.kinds.map((k) => contestItem(k, d.c, winners.get(d.c.id.toString()) ?? [], signatures.get(d.c.id.toString()) ?? [])));
  await deps.ch.insert("activity", rows);
  for (const d of due)
    await deps.sql`UPDATE contests SET published = ARRAY(SELECT DISTINCT unnest(published || ${d.kinds}::text[]) ORDER BY 1) WHERE id = ${d.c.id.toString()}`;
  return rows.length;
}

/** The confirmed prize transactions of each contest, in batch order. */
async function prizeSignatures(sql: Sql, ids: bigint[]): Promise<Map<string, string[]>> {
  const rows = await sql<{ owner_id: string; signature: string }[]>`
    SELECT owner_id, signature FROM payment_batches
    WHERE owner_kind = ${CONTEST_OWNER} AND owner_id IN ${sql(ids.map(String))} AND status = 'confirmed' AND signature IS NOT NULL
    ORDER BY owner_id, seq`;
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.owner_id, [...(out.get(r.owner_id) ?? []), r.signature]);
  return out;
}
