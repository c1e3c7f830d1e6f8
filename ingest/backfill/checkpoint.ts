/**
 * Backfill checkpoints in Postgres (`backfill_checkpoints`): where the walk of one
 * address over one range stands. Advanced only after a page's transactions are
 * stored (the bus resolved), so a crash repeats at most one page, and a repeated
 * page adds nothing (facts are deduplicated downstream).
 */
import type { Sql } from "../../infra/postgres";

export type AddressKind = "config" | "damm_v2" | "dbc" | "mint" | "treasury";

export type Checkpoint = {
  address: string;
  since: string;
  kind: AddressKind;
  before: string | null;
  pages: number;
  signatures: number;
  failed: number;
  alreadyStored: number;
  published: number;
  done: boolean;
};

export type PageProgress = { before: string | null; signatures: number; failed: number; alreadyStored: number; published: number; done: boolean };

type Row = {
  address: string;
  since: string;
  kind: AddressKind;
  before_signature: string | null;
  pages: number;
  signatures: bigint;
  failed: bigint;
  already_stored: bigint;
  published: bigint;
  done: boolean;
};

const fromRow = (r: Row): Checkpoint => ({
  address: r.address,
  since: r.since,
  kind: r.kind,
  before: r.before_signature,
  pages: r.pages,
  signatures: Number(r.signatures),
  failed: Number(r.failed),
  alreadyStored: Number(r.already_stored),
  published: Number(r.published),
  done: r.done,
});

/** The checkpoint of (address, since), created if new; `restart` starts it over from the newest signature. */
export async function openCheckpoint(sql: Sql, address: string, since: string, kind: AddressKind, restart: boolean): Promise<Checkpoint> {
  const rows = restart
    ? await sql<Row[]>`
        INSERT INTO backfill_checkpoints (address, since, kind) VALUES (${address}, ${since}, ${kind})
        ON CONFLICT (address, since) DO UPDATE SET kind = EXCLUDED.kind, before_signature = NULL, pages = 0, signatures = 0, failed = 0,
          already_stored = 0, published = 0, done = false, started_at = now(), updated_at = now(), finished_at = NULL
        RETURNING *`
    : await sql<Row[]>`
        INSERT INTO backfill_checkpoints (address, since, kind) VALUES (${address}, ${since}, ${kind})
        ON CONFLICT (address, since) DO UPDATE SET updated_at = backfill_checkpoints.updated_at
        RETURNING *`;
  return fromRow(rows[0]!);
}

export async function advanceCheckpoint(sql: Sql, address: string, since: string, p: PageProgress): Promise<void> {
  await sql`
    UPDATE backfill_checkpoints SET
      before_signature = ${p.before}, pages = pages + 1, signatures = signatures + ${p.signatures}, failed = failed + ${p.failed},
      already_stored = already_stored + ${p.alreadyStored}, published = published + ${p.published}, done = ${p.done},
      updated_at = now(), finished_at = CASE WHEN ${p.done} THEN now() ELSE NULL END
    WHERE address = ${address} AND since = ${since}`;
}
