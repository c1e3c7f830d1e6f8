/**
 * Tests: the real `agents` process (agents/main.ts) on a Postgres database of its own (made
 * in the shared test engines), a ClickHouse HTTP test double and a data folder of its own,
 * started with the environment a test gives (the RPC test double's URL, keys), and killed
 * with SIGKILL at a step of a payment batch (TREASURY_EXECUTOR_CRASH_AT). Each process is
 * stopped whatever the outcome.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../infra/net";
import { until } from "../../../infra/testing/wait";
import { testEngines } from "../../../infra/testing/engines";
import { startClickhouseHttpDouble } from "../../../infra/testing/clickhouse-http-double-process";
import { printed, spawnChild, stopChild, type Child } from "../../../infra/testing/processes";
import { connectSql } from "../../../infra/postgres";
import { migratePostgres } from "../../../infra/migrate";
import { createLogger } from "../../../infra/log";
import type { CrashStep } from "../executor";

const ROOT = join(import.meta.dir, "..", "..", "..");

export async function agentsProcessTestbed(prefix: string) {
  const engines = await testEngines();
  const database = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
  await engines.sql.unsafe(`CREATE DATABASE ${database}`);
  const dbUrl = engines.pgUrl.replace(/\/postgres$/, `/${database}`);
  const db = connectSql(dbUrl, 4);
  await migratePostgres(db, createLogger("error"));
  const clickhouse = await startClickhouseHttpDouble();
  const dataDir = mkdtempSync(join(tmpdir(), `acp-${prefix}-`));

  /** The agents process with `env` over the testbed's (its database, ClickHouse, data folder, a free port). */
  const spawnAgents = async (env: Record<string, string>, crashAt?: CrashStep): Promise<Child> =>
    spawnChild([process.execPath, join(ROOT, "agents/main.ts")], {
      cwd: ROOT,
      env: {
        ...process.env,
        LOG_LEVEL: "warn",
        PORT: String(await freePort()),
        DATA_DIR: dataDir,
        DATABASE_URL: dbUrl,
        CLICKHOUSE_URL: clickhouse.url,
        SIMULATOR: "off",
        TREASURY_EXECUTOR_SECONDS: "1",
        TREASURY_EXECUTOR_LEASE_SECONDS: "2",
        ...env,
        TREASURY_EXECUTOR_CRASH_AT: crashAt ?? "",
      },
    });

  return {
    engines,
    db,
    dbUrl,
    clickhouse,
    spawnAgents,
    /** Starts the process with the crash hook and waits for it to kill itself at `step`. */
    async crashAt(env: Record<string, string>, step: CrashStep): Promise<void> {
      const proc = await spawnAgents(env, step);
      try {
        await until(`the agents process killing itself at ${step}`, async () => (proc.exitCode !== null || proc.signalCode !== null ? true : undefined), 120_000);
        if (proc.signalCode !== "SIGKILL") throw new Error(`expected SIGKILL at ${step}, got exit ${proc.exitCode}; it printed:\n${await printed(proc)}`);
      } finally {
        await stopChild(proc, "SIGKILL");
      }
    },
    /** Starts the process without the hook until `done` says so, then stops it (its exit code); fails with `state()` and what it printed. */
    async runUntil(env: Record<string, string>, what: string, done: () => Promise<boolean>, state: () => Promise<unknown>): Promise<number | null> {
      const proc = await spawnAgents(env);
      let outcome: "done" | "exited";
      try {
        outcome = await until(what, async () => (proc.exitCode !== null || proc.signalCode !== null ? "exited" : (await done()) ? "done" : undefined), 120_000);
      } catch (err) {
        await stopChild(proc);
        throw new Error(`${(err as Error).message}; ${JSON.stringify(await state())}; it printed:\n${await printed(proc)}`);
      }
      if (outcome === "exited") {
        await stopChild(proc);
        throw new Error(`the agents process exited (${proc.exitCode ?? proc.signalCode}); it printed:\n${await printed(proc)}`);
      }
      return stopChild(proc);
    },
    async stop() {
      await clickhouse.stop();
      await db.end({ timeout: 1 });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
