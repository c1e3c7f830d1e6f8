/**
 * Forward-only migrations: numbered .sql files applied in order, each recorded once.
 * Idempotent: running again applies only what is new.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClickHouse } from "./clickhouse";
import type { Sql } from "./postgres";
import type { Logger } from "./log";
import { LOCKS, whileHoldingLock } from "./advisory-lock";

const SQL_ROOT = join(import.meta.dir, "..", "sql");

export function migrationFiles(engine: "clickhouse" | "postgres"): { name: string; text: string }[] {
  const dir = join(SQL_ROOT, engine);
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), "utf8") }));
}

/** Splits a file into statements on `;` at the end of a line (our SQL never puts one elsewhere). */
export function statements(text: string): string[] {
  return text
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter(Boolean);
}

export async function migratePostgres(sql: Sql, log: Logger): Promise<string[]> {
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    // one migrator at a time across processes
    await tx`SELECT pg_advisory_xact_lock(7263001)`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    const done = new Set((await tx`SELECT name FROM schema_migrations`).map((r) => r.name as string));
    for (const file of migrationFiles("postgres")) {
      if (done.has(file.name)) continue;
      await tx.unsafe(file.text);
      await tx`INSERT INTO schema_migrations (name) VALUES (${file.name})`;
      applied.push(file.name);
    }
  });
  if (applied.length) log.info("postgres migrations applied", { applied });
  return applied;
}

/**
 * With `lock` (the shared Postgres), one process migrates at a time: the processes of the
 * scaled mode start together, and a table rebuild (0006) must not run twice at once.
 */
export async function migrateClickhouse(ch: ClickHouse, log: Logger, lock?: Sql): Promise<string[]> {
  return lock ? whileHoldingLock(lock, LOCKS.clickhouseMigrations, () => applyClickhouse(ch, log)) : applyClickhouse(ch, log);
}

async function applyClickhouse(ch: ClickHouse, log: Logger): Promise<string[]> {
  await ch.command(
    "CREATE TABLE IF NOT EXISTS schema_migrations (name String, applied_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree ORDER BY name",
  );
  const done = new Set((await ch.query<{ name: string }>("SELECT name FROM schema_migrations")).map((r) => r.name));
  const applied: string[] = [];
  for (const file of migrationFiles("clickhouse")) {
    if (done.has(file.name)) continue;
    // every statement is written to be re-runnable (IF NOT EXISTS), so a crash mid-file is safe to retry
    for (const stmt of statements(file.text)) await ch.command(stmt);
    await ch.insert("schema_migrations", [{ name: file.name }]);
    applied.push(file.name);
  }
  if (applied.length) log.info("clickhouse migrations applied", { applied });
  return applied;
}
