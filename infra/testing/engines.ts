/**
 * Real engines for integration tests: an embedded Postgres and chDB, each in a
 * fresh temporary folder, migrated. chDB allows one data folder per process, so
 * the engines are shared by every test file in a process; tests use their own mints.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbeddedPostgres, connectSql, type Sql } from "../postgres";
import { createChdb } from "../clickhouse/chdb";
import type { ClickHouse } from "../clickhouse";
import { migrateClickhouse, migratePostgres } from "../migrate";
import { createLogger } from "../log";

export type TestEngines = { ch: ClickHouse; sql: Sql; dir: string; pgUrl: string };

let shared: Promise<TestEngines> | null = null;
let stopShared: (() => Promise<void>) | null = null;

/** Stops the engines (the global test teardown calls it; bun test runs no exit hooks). */
export async function stopTestEngines(): Promise<void> {
  await stopShared?.();
  stopShared = null;
  shared = null;
}

/**
 * Embedded Postgres and chDB in a new temporary folder, migrated; `stop` stops them and
 * removes the folder. For tests (through testEngines) and benchmarks.
 */
export async function freshEngines(prefix: string, poolSize = 10): Promise<TestEngines & { stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const engines = await enginesIn(dir, poolSize);
  return {
    ...engines,
    async stop() {
      await engines.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Embedded Postgres and chDB in `dir` (created if missing, else reopened with what it holds), migrated; `stop`
 * stops them and keeps the folder. For benchmarks that keep a generated dataset between runs.
 */
export async function enginesIn(dir: string, poolSize = 10): Promise<TestEngines & { stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755); // the embedded Postgres runs as the postgres user when run as root
  const log = createLogger("warn");
  const pg = await startEmbeddedPostgres(join(dir, "postgres"), log);
  const sql = connectSql(pg.url, poolSize);
  const ch = await createChdb(join(dir, "clickhouse"));
  await migratePostgres(sql, log);
  await migrateClickhouse(ch, log, sql);
  return {
    ch,
    sql,
    dir,
    pgUrl: pg.url,
    async stop() {
      await sql.end({ timeout: 1 });
      await pg.stop();
    },
  };
}

export function testEngines(): Promise<TestEngines> {
  shared ??= freshEngines("acp-test").then((engines) => {
    stopShared = engines.stop;
    return engines;
  });
  return shared;
}
