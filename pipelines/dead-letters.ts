/**
 * Transactions set aside by the sink: each failed its write on its own while the rest
 * of the write was stored (isolate.ts). In-process they are kept in Postgres
 * `sink_dead_letters` with the envelope as it travels on the bus, the reason and the
 * time; the Kafka consumer sends its own to the dead-letter topic instead.
 */
import type { Sql } from "../infra/postgres";
import type { TxEnvelope } from "../ingest/contract/envelope";
import { encodeEnvelope } from "./kafka/topics";

export type RejectedEnvelope = { envelope: TxEnvelope; reason: string };

/** A reason fit for a text column and a log line: bounded, and without U+0000. */
export function rejectionReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replaceAll("\0", "\\u0000").slice(0, 1000);
}

export async function storeDeadLetters(sql: Sql, rejected: readonly RejectedEnvelope[]): Promise<void> {
  if (rejected.length === 0) return;
  // JSON escapes U+0000, so the envelope text can hold what made it fail
  const rows = rejected.map((r) => ({ signature: r.envelope.signature.replaceAll("\0", "\\u0000"), reason: r.reason, envelope: encodeEnvelope(r.envelope) }));
  await sql`INSERT INTO sink_dead_letters ${sql(rows, "signature", "reason", "envelope")}`;
}
