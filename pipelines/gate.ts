/**
 * The exactly-once gate in front of ClickHouse. Delivery is at least once, and the
 * materialized views sum what they are given, so a fact key must reach its table
 * once.
 *
 * A transaction's facts and its row in the `transactions` ledger are written side
 * by side; its in-flight mark (Postgres `sink_in_flight`, made when it arrives)
 * is removed only after all of them. So one ledger lookup drops every transaction
 * already stored, unless its mark is still there: a write that died half-way left
 * it. Only those "suspect" transactions (and replayed parked facts) have each fact
 * table checked for their keys before the insert, so a redelivery completes what is
 * missing and adds nothing twice.
 * Writes are serialized per process (the sink's queue); across processes the bus
 * keys by mint, so one coin's facts meet one writer.
 */
import { stringListLiteral, type ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { FactTable } from "./rows";
import type { PricedTable } from "./priced-rows";
import { markedInFlight } from "./in-flight";
import type { SignatureAt } from "../ingest/contract/bus";

type Row = Record<string, unknown>;

/**
 * Key lists are sent in chunks: over HTTP a ClickHouse server takes query parameters in the
 * URL (http_max_uri_size, 1 MiB by default), and 2,000 signatures are about 180 KB.
 */
const CHUNK = 2000;
const chunks = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));
const rowKey = (r: Row) => (r.id as string | undefined) ?? `${r.signature}:${r.ix}:${r.inner}`;

export function dedupeRows<R extends Row>(rows: R[]): R[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = rowKey(r);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export async function newRowsOnly<R extends Row>(ch: ClickHouse, table: FactTable | PricedTable, rows: R[]): Promise<R[]> {
  const unique = dedupeRows(rows);
  if (unique.length === 0) return unique;
  let existing: Set<string>;
  if (table === "activity") {
    const mints = [...new Set(unique.map((r) => r.mint as string))];
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
        // the treasury's flows name no coin (a transfer names the agent it was classified as when
        // stored, which a redelivery may classify otherwise); the tables hold a few rows per treasury action
        if (table === "treasury_flows" || table === "treasury_transfers")
          return ch.query<{ signature: string; ix: number; inner: number }>(`SELECT signature, ix, inner FROM ${table} WHERE signature IN {sigs:Array(String)}`, { sigs });
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

/** The contract's (ingest/contract/bus.ts): what backfill and reconciliation ask about. */
export type { SignatureAt };

/**
 * Slots further apart than this are looked up separately: the ledger is keyed by
 * (slot, signature), and one range spanning both a live delivery and an old
 * (backfilled or undecodable, slot 0) transaction would read everything between.
 * About an hour of slots.
 */
const SLOT_GAP = 9_000;

/**
 * Signatures in the transaction ledger. A ledger row is written beside its facts, so
 * this alone does not prove the facts are all stored: see completedSignatures.
 *
 * Only the last TAIL characters of each signature are sent: sending a few thousand
 * whole signatures (88 characters each) cost more than the lookup itself (16 of
 * 20 ms with chDB). The slot range keeps the read on the key; a tail matching some
 * other signature in that range only returns that signature, which the exact
 * comparison here then leaves out. The list is written into the query, not passed as a
 * parameter, so this read on every webhook call's path never waits in chDB's line of
 * parameterized queries (infra/clickhouse stringListLiteral).
 */
export async function storedSignatures(ch: ClickHouse, items: readonly SignatureAt[]): Promise<Set<string>> {
  const wanted = new Set(items.map((i) => i.signature));
  const found = await Promise.all(
    slotClusters(items).flatMap((cluster) =>
      chunks(cluster).map((part) =>
        ch.query<{ signature: string }>(
          `SELECT signature FROM transactions WHERE slot BETWEEN ${slotLiteral(part[0]!.slot)} AND ${slotLiteral(part[part.length - 1]!.slot)} AND right(signature, ${TAIL}) IN ${stringListLiteral(part.map((i) => i.signature.slice(-TAIL)))}`,
        ),
      ),
    ),
  );
  return new Set(found.flat().map((r) => r.signature).filter((s) => wanted.has(s)));
}

/**
 * Signatures stored completely: in the ledger and without an in-flight mark. The
 * ledger is written side by side with the facts, so a transaction whose write died
 * half-way can be in it; its mark stays until a redelivery completes it. Readers
 * that skip what is stored (backfill, reconciliation) use this.
 */
export async function completedSignatures(ch: ClickHouse, sql: Sql, items: readonly SignatureAt[]): Promise<Set<string>> {
  const stored = await storedSignatures(ch, items);
  if (stored.size === 0) return stored;
  for (const s of await markedInFlight(sql, [...stored])) stored.delete(s);
  return stored;
}

/** A slot as SQL: a whole number, checked (slots come from the network). */
function slotLiteral(slot: number): string {
  if (!Number.isSafeInteger(slot) || slot < 0) throw new Error(`not a slot: ${slot}`);
  return String(slot);
}

/** Base58 signatures are random: 16 characters (94 bits) make a false match vanishingly rare. */
const TAIL = 16;

/** Items sorted by slot and split where consecutive slots are more than SLOT_GAP apart. */
export function slotClusters<T extends { slot: number }>(items: readonly T[]): T[][] {
  const sorted = [...items].sort((a, b) => a.slot - b.slot);
  const clusters: T[][] = [];
  for (const item of sorted) {
    const last = clusters[clusters.length - 1];
    if (last && item.slot - last[last.length - 1]!.slot <= SLOT_GAP) last.push(item);
    else clusters.push([item]);
  }
  return clusters;
}
