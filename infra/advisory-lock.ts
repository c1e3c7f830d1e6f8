/**
 * Runs a job at most once at a time across every process sharing the Postgres: a
 * session advisory lock held on a reserved connection (session locks belong to a
 * connection, not to the pool). A caller that does not get the lock skips.
 */
import type { Sql } from "./postgres";

/** Advisory lock keys, in one place: Postgres migrations use 7263001. daemonOperator is the first of a pair (the second: hashtext(mint)), one lock per agent; vaultSpend likewise (hashtext(vault)), a transaction-level lock per vault (agents/treasury/spend.ts); contests: the contest job (agents/contests/job.ts); feeDistribution: the platform's fee distribution job. */
export const LOCKS = { reconcile: 7263002, launchTracker: 7263003, clickhouseMigrations: 7263004, heliusAddressSync: 7263005, daemonOperator: 7263006, holdersReconcile: 7263007, vaultSpend: 7263008, contests: 7263011, feeDistribution: 7263016 } as const;

/** Runs `job` holding the lock, waiting for it as long as another process holds it. */
export async function whileHoldingLock<T>(sql: Sql, key: number, job: () => Promise<T>): Promise<T> {
  const reserved = await sql.reserve();
  try {
    await reserved`SELECT pg_advisory_lock(${key})`;
    try {
      return await job();
    } finally {
      await reserved`SELECT pg_advisory_unlock(${key})`;
    }
  } finally {
    reserved.release();
  }
}

export async function withAdvisoryLock<T>(sql: Sql, key: number, job: () => Promise<T>): Promise<{ skipped: true } | { skipped: false; value: T }> {
  const reserved = await sql.reserve();
  try {
    const [row] = await reserved<{ locked: boolean }[]>`SELECT pg_try_advisory_lock(${key}) AS locked`;
    if (!row?.locked) return { skipped: true };
    try {
      return { skipped: false, value: await job() };
    } finally {
      await reserved`SELECT pg_advisory_unlock(${key})`;
    }
  } finally {
    reserved.release();
  }
}
