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
    const ids = unique.map((r) => r.id as string);
    const found = await ch.query<{ id: string }>(
      "SELECT id FROM activity WHERE mint IN {mints:Array(String)} AND id IN {ids:Array(String)}",
      { mints, ids },
    );
    existing = new Set(found.map((r) => r.id));
  } else {
    const sigs = [...new Set(unique.map((r) => r.signature as string))];
    const found = await ch.query<{ signature: string; ix: number; inner: number }>(
      `SELECT signature, ix, inner FROM ${table} WHERE mint IN {mints:Array(String)} AND signature IN {sigs:Array(String)}`,
      { mints, sigs },
    );
    existing = new Set(found.map((r) => `${r.signature}:${r.ix}:${r.inner}`));
  }
  return existing.size ? unique.filter((r) => !existing.has(rowKey(r))) : unique;
}

/** Signatures already recorded (with all their facts) in raw_transactions. */
export async function storedSignatures(ch: ClickHouse, signatures: string[]): Promise<Set<string>> {
  if (signatures.length === 0) return new Set();
  const found = await ch.query<{ signature: string }>("SELECT signature FROM raw_transactions WHERE signature IN {sigs:Array(String)}", {
    sigs: signatures,
  });
  return new Set(found.map((r) => r.signature));
}
