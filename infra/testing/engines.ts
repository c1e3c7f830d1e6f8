/**
 * Real engines for integration tests: an embedded Postgres and chDB, each in a
 * fresh temporary folder, migrated. chDB allows one data folder per process, so
 * the engines are shared by every test file in a process; tests use their own mints.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
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

export function testEngines(): Promise<TestEngines> {
  shared ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-test-"));
    chmodSync(dir, 0o755); // the embedded Postgres runs as the postgres user when tests run as root
    const log = createLogger("warn");
    const pg = await startEmbeddedPostgres(join(dir, "postgres"), log);
    const sql = connectSql(pg.url);
    const ch = await createChdb(join(dir, "clickhouse"));
    await migratePostgres(sql, log);
    await migrateClickhouse(ch, log);
    stopShared = async () => {
      await sql.end({ timeout: 1 });
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    return { ch, sql, dir, pgUrl: pg.url };
  })();
  return shared;
}
