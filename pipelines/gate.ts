/**
 * The exactly-once gate in front of ClickHouse. Delivery is at least once, and the
 * materialized views sum what they are given, so a fact key must reach its table
 * once.
 *
 * A transaction is recorded in raw_transactions after all its facts: one lookup
 * there drops every transaction already stored. A write that died half-way leaves
 * its signatures in Postgres `sink_inflight`; only those "suspect" transactions
 * (and replayed parked facts) have each fact table checked for their keys before
 * the insert, so a redelivery completes what is missing and adds nothing twice.
 * Writes are serialized per process (the sink's queue); across processes the bus
 * keys by mint, so one coin's facts meet one writer.
 */
import type { ClickHouse } from "../infra/clickhouse";
import type { FactTable } from "./rows";

type Row = Record<string, unknown>;

/**
 * Key lists are sent in chunks: over HTTP a ClickHouse server takes query parameters in the
 * URL (http_max_uri_size, 1 MiB by default), and 2,000 signatures are about 180 KB.
 */
const CHUNK = 2000;
const chunks = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));
const rowKey = (r: Row) => (r.id as string | undefined) ?? `${r.signature}:${r.ix}:${r.inner}`;

export function dedupeRows(rows: Row[]): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = rowKey(r);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export async function newRowsOnly(ch: ClickHouse, table: FactTable, rows: Row[]): Promise<Row[]> {
  const unique = dedupeRows(rows);
  if (unique.length === 0) return unique;
  const mints = [...new Set(unique.map((r) => r.mint as string))];
  let existing: Set<string>;
  if (table === "activity") {
    const found = await Promise.all(
      chunks(unique.map((r) => r.id as string)).map((ids) =>
        ch.query<{ id: string }>("SELECT id FROM activity WHERE mint IN {mints:Array(String)} AND id IN {ids:Array(String)}", { mints, ids }),
      ),
    );
    existing = new Set(found.flat().map((r) => r.id));
  } else {
    // rows of one chunk of signatures carry few mints; the mint filter keeps the read on the key
    const found = await Promise.all(
      chunks([...new Set(unique.map((r) => r.signature as string))]).map((sigs) => {
        const inChunk = new Set(sigs);
        const chunkMints = [...new Set(unique.filter((r) => inChunk.has(r.signature as string)).map((r) => r.mint as string))];
        return ch.query<{ signature: string; ix: number; inner: number }>(
          `SELECT signature, ix, inner FROM ${table} WHERE mint IN {mints:Array(String)} AND signature IN {sigs:Array(String)}`,
          { mints: chunkMints, sigs },
        );
      }),
    );
    existing = new Set(found.flat().map((r) => `${r.signature}:${r.ix}:${r.inner}`));
  }
  return existing.size ? unique.filter((r) => !existing.has(rowKey(r))) : unique;
}

/** Signatures already recorded (with all their facts) in raw_transactions. */
export async function storedSignatures(ch: ClickHouse, signatures: string[]): Promise<Set<string>> {
  const found = await Promise.all(
    chunks(signatures).map((sigs) => ch.query<{ signature: string }>("SELECT signature FROM raw_transactions WHERE signature IN {sigs:Array(String)}", { sigs })),
  );
  return new Set(found.flat().map((r) => r.signature));
}
