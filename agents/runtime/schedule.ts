/**
 * The schedule of decision cycles in Postgres (`agent_cycles`): which awake agents are
 * due, taken oldest-due first with FOR UPDATE SKIP LOCKED under a lease, so processes
 * sharing the database never run one agent's cycle twice at once and each takes the
 * agents others are not taking.
 */
import type { Sql } from "../../infra/postgres";

export type Claimed = { mint: string; cycle: number; failures: number };

/** Leases up to `limit` due cycles of awake agents to `token` for `leaseMs`. */
export async function claimDue(sql: Sql, o: { limit: number; leaseMs: number; token: string }): Promise<Claimed[]> {
  if (o.limit <= 0) return [];
  const rows = await sql<{ mint: string; cycles: string; failures: number }[]>`
    WITH due AS (
      SELECT c.mint FROM agent_cycles c JOIN agents a ON a.mint = c.mint
      WHERE a.state = 'awake' AND c.due_at <= now() AND (c.lease_until IS NULL OR c.lease_until < now())
      ORDER BY c.due_at, c.mint
      LIMIT ${o.limit}
      FOR UPDATE OF c SKIP LOCKED
    )
    UPDATE agent_cycles c SET lease_token = ${o.token}, lease_until = now() + make_interval(secs => ${o.leaseMs / 1000}),
      cycles = c.cycles + 1, last_started_at = now()
    FROM due WHERE c.mint = due.mint
    RETURNING c.mint, c.cycles::text AS cycles, c.failures`;
  return rows.map((r) => ({ mint: r.mint, cycle: Number(r.cycles), failures: r.failures }));
}

/** Ends a leased cycle (only while the lease is still this process's): the next one is due in `nextInMs`. */
export async function finishCycle(sql: Sql, mint: string, token: string, o: { ok: boolean; nextInMs: number }): Promise<boolean> {
  const rows = await sql`
    UPDATE agent_cycles SET lease_token = NULL, lease_until = NULL, last_finished_at = now(),
      failures = ${o.ok ? sql`0` : sql`failures + 1`}, due_at = now() + make_interval(secs => ${o.nextInMs / 1000})
    WHERE mint = ${mint} AND lease_token = ${token} RETURNING mint`;
  return rows.length === 1;
}

/** Makes the agent's next cycle due now (a queued check), keeping a running cycle's lease. */
export async function dueNow(sql: Sql, mint: string): Promise<void> {
  await sql`INSERT INTO agent_cycles (mint, due_at) VALUES (${mint}, now()) ON CONFLICT (mint) DO UPDATE SET due_at = LEAST(agent_cycles.due_at, now())`;
}

/** The wait before the next cycle: the cadence, doubled per failure in a row up to 16 times it. */
export function nextCycleInMs(cadenceMs: number, ok: boolean, failuresBefore: number): number {
  return ok ? cadenceMs : cadenceMs * 2 ** Math.min(failuresBefore + 1, 4);
}

/**
 * Agents with a proposal their operator asked to regenerate: their next cycle is due now
 * (not while a cycle runs, nor after a failed one: those wait for their backoff).
 */
export async function dueForRegeneration(sql: Sql): Promise<void> {
  await sql`
    UPDATE agent_cycles c SET due_at = now()
    FROM (SELECT DISTINCT mint FROM daemon_proposals WHERE status = 'regenerating') p
    WHERE c.mint = p.mint AND c.due_at > now() AND c.lease_token IS NULL AND c.failures = 0`;
}
