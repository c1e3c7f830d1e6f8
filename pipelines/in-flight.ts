/**
 * In-flight marks (Postgres `sink_in_flight`): the signatures of the sink's writes in
 * progress. A write that dies half-way leaves its marks behind; when its
 * transactions are delivered again their facts are checked table by table (gate.ts).
 *
 * A mark is keyed by a 64-bit number taken from the signature, not by the 88-character
 * text: Postgres then spends half the CPU on a mark (7 against 14 µs per signature,
 * bench/in-flight-profile.ts). The key is the value of the signature's last ten base58
 * digits (58^10 < 2^63, about 58.6 random bits), fixed by the signature alone, so a mark
 * left by a crash matches after an upgrade too. Two signatures sharing a key among the
 * few thousand in flight is vanishingly rare (~10^-10 per write), and only makes one of
 * them checked table by table, or its mark removed a write early. An identifier that
 * is not base58 (an undecodable element's stand-in) is keyed by its SHA-256 instead.
 */
import { createHash } from "node:crypto";
import type { Sql } from "../infra/postgres";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
const FIVE_DIGITS = 58 ** 5;

/** The mark key of a signature, as a decimal string (Postgres bigint). */
export function markKey(signature: string): string {
  if (signature.length < 10) return hashKey(signature);
  let hi = 0;
  let lo = 0;
  for (let i = signature.length - 10; i < signature.length; i++) {
    const d = DIGIT[signature.charCodeAt(i)] ?? -1;
    if (d < 0) return hashKey(signature);
    if (i < signature.length - 5) hi = hi * 58 + d;
    else lo = lo * 58 + d;
  }
  return (BigInt(hi) * BigInt(FIVE_DIGITS) + BigInt(lo)).toString();
}

const hashKey = (id: string) => (createHash("sha256").update(id).digest().readBigUInt64BE(0) >> 1n).toString();

/**
 * Marks the signatures in flight; returns those already marked (by another write in
 * progress, or left by one that died).
 */
export function markInFlight(sql: Sql, signatures: readonly string[]): Promise<string[]> {
  return createInFlightMarker(sql)(signatures);
}

/**
 * `markInFlight` for many callers at once: up to `concurrent` statements run side by side;
 * batches that arrive while they are all busy are marked together in the next one (one
 * INSERT, one commit). Under load (64 webhook calls in flight) that is a few statements per
 * sink write instead of one per call: the statements' socket writes and commits cost the
 * main thread and Postgres more than the marks themselves. Each caller is told the same as
 * alone: its signatures already marked, by an earlier statement or by an earlier caller in
 * the same statement (a transaction delivered twice at once is checked, never written twice).
 */
export function createInFlightMarker(sql: Sql, concurrent = 2): (signatures: readonly string[]) => Promise<string[]> {
  type Caller = { signatures: readonly string[]; resolve(already: string[]): void; reject(err: unknown): void };
  let pending: Caller[] = [];
  let running = 0;
  const send = (callers: Caller[]) => {
    running++;
    // key → the callers' signatures under it, the first caller's first
    const byKey = new Map<string, { caller: Caller; signature: string }[]>();
    for (const caller of callers)
      for (const signature of caller.signatures) {
        const k = markKey(signature);
        const same = byKey.get(k);
        if (same) same.push({ caller, signature });
        else byKey.set(k, [{ caller, signature }]);
      }
    sql<{ key: string }[]>`
      INSERT INTO sink_in_flight (key) SELECT unnest(${[...byKey.keys()]}::bigint[]) ON CONFLICT DO NOTHING RETURNING key::text AS key`.then(
      (won) => {
        const already = new Map(callers.map((c) => [c, [] as string[]]));
        const wonKeys = new Set(won.map((r) => r.key));
        for (const [k, holders] of byKey) {
          // a key won is the first caller's (all its signatures under the key); later callers find it marked
          const winner = wonKeys.has(k) ? holders[0]!.caller : null;
          for (const h of holders) if (h.caller !== winner) already.get(h.caller)!.push(h.signature);
        }
        for (const c of callers) c.resolve(already.get(c)!);
      },
      (err: unknown) => {
        for (const c of callers) c.reject(err);
      },
    ).finally(() => {
      running--;
      if (pending.length && running < concurrent) {
        const next = pending;
        pending = [];
        send(next);
      }
    });
  };
  return (signatures) =>
    new Promise<string[]>((resolve, reject) => {
      const caller = { signatures, resolve, reject };
      if (running < concurrent) send([caller]);
      else pending.push(caller);
    });
}

/** Removes the marks of the signatures. */
export async function clearInFlight(sql: Sql, signatures: readonly string[]): Promise<void> {
  await sql`DELETE FROM sink_in_flight WHERE key = ANY(${signatures.map(markKey)}::bigint[])`;
}

/** The signatures among these that are marked in flight. */
export async function markedInFlight(sql: Sql, signatures: readonly string[]): Promise<Set<string>> {
  const keys = signatures.map(markKey);
  const rows = await sql<{ key: string }[]>`SELECT key::text AS key FROM sink_in_flight WHERE key = ANY(${[...new Set(keys)]}::bigint[])`;
  const held = new Set(rows.map((r) => r.key));
  return new Set(signatures.filter((_, i) => held.has(keys[i]!)));
}
