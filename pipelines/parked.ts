/**
 * Parked facts (Postgres `parked_facts`) wait for a pool or coin not seen yet and are
 * replayed when it appears (sink-write.ts). Those whose pool or coin never appears
 * would be kept forever: past a limit they are dropped.
 */
import type { Sql } from "../infra/postgres";

/** Drops the parked facts older than `maxAgeMs`; returns how many. */
export async function expireParkedOlderThan(sql: Sql, maxAgeMs: number): Promise<number> {
  const gone = await sql`DELETE FROM parked_facts WHERE parked_at < now() - ${maxAgeMs / 1000} * interval '1 second'`;
  return gone.count;
}

/** Drops the facts parked for these pools or coins (known now not to be the platform's); returns how many. */
export async function dropParkedFor(sql: Sql, waitsFor: readonly string[]): Promise<number> {
  const gone = await sql`DELETE FROM parked_facts WHERE waits_for IN ${sql(waitsFor)}`;
  return gone.count;
}
