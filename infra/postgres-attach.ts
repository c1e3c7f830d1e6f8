/**
 * Postgres for command-line tools (`bun run keys`, ...), connected the way the service is:
 * DATABASE_URL if set; else the embedded Postgres under DATA_DIR/postgres. A running service
 * holds that embedded server (on a random port), so a tool attaches to it: the port is line 4
 * of DATA_DIR/postgres/data/postmaster.pid (its pid, line 1, must be alive) and the password is
 * in DATA_DIR/postgres/credentials.json. With nothing running, the tool starts the server
 * itself and stops it when done, holding DATA_DIR/postgres/owner.lock meanwhile (a service
 * started then exits 1 saying another process runs on this DATA_DIR; see
 * embedded-postgres.ts). Migrations run first, as at service start.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config";
import { createLogger, type Logger } from "./log";
import { connectSql, startEmbeddedPostgres, type PostgresHandle } from "./postgres";
import { migratePostgres } from "./migrate";
import { copiedPidFileError } from "./embedded-postgres";

export type ToolPostgres = PostgresHandle & { mode: "url" | "attached" | "started" };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by another user (the postgres user when run as root)
  }
}

/**
 * The embedded Postgres running on `dir` (DATA_DIR/postgres), or null. Waits up to `waitMs` for
 * one that is starting up to be ready, or for one that is shutting down to be gone.
 */
export async function runningEmbeddedPostgres(dir: string, waitMs = 15_000): Promise<{ pid: number; port: number } | null> {
  const pidFile = join(dir, "data", "postmaster.pid");
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (!existsSync(pidFile)) return null;
    let lines: string[] = [];
    try {
      lines = readFileSync(pidFile, "utf8").split("\n").map((l) => l.trim());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null; // removed between the check and the read
      throw new Error(`cannot read ${pidFile} to find the running Postgres: ${(err as Error).message}`);
    }
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return null; // stale file of a server that died
    const copied = copiedPidFileError(join(dir, "data"), lines); // its port is another DATA_DIR's server: never write there
    if (copied) throw copied;
    const status = lines[7] ?? ""; // "starting", "ready", "stopping" (empty while being written)
    if (status === "ready" && Number.isInteger(port) && port > 0) return { pid, port };
    if (Date.now() > deadline) throw new Error(`the Postgres in ${dir} (pid ${pid}) is ${status || "not ready"}; try again`);
    await Bun.sleep(200);
  }
}

export async function openPostgresForTool(
  config: Pick<Config, "databaseUrl" | "dataDir"> & Partial<Pick<Config, "embeddedPostgresFallbackDir">>,
  log: Logger,
  o: { migrate?: boolean } = {},
): Promise<ToolPostgres> {
  let handle: ToolPostgres;
  if (config.databaseUrl) {
    const sql = connectSql(config.databaseUrl, 2);
    handle = { sql, url: config.databaseUrl, mode: "url", stop: () => sql.end({ timeout: 5 }) };
  } else {
    const dir = join(config.dataDir, "postgres");
    const running = await runningEmbeddedPostgres(dir);
    if (running) {
      const credentialsFile = join(dir, "credentials.json");
      if (!existsSync(credentialsFile)) throw new Error(`a Postgres runs on ${dir} but ${credentialsFile} is missing`);
      const { password } = JSON.parse(readFileSync(credentialsFile, "utf8")) as { password: string };
      const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${running.port}/postgres`;
      const sql = connectSql(url, 2);
      log.info("attached to the running embedded postgres", { dataDir: dir, port: running.port, pid: running.pid });
      handle = { sql, url, mode: "attached", stop: () => sql.end({ timeout: 5 }) };
    } else {
      const embedded = await startEmbeddedPostgres(dir, log, { stateRoot: config.embeddedPostgresFallbackDir });
      const sql = connectSql(embedded.url, 2);
      handle = {
        sql,
        url: embedded.url,
        mode: "started",
        async stop() {
          await sql.end({ timeout: 5 });
          await embedded.stop();
        },
      };
    }
  }
  if (o.migrate ?? true) {
    try {
      await migratePostgres(handle.sql, log);
    } catch (err) {
      await handle.stop().catch(() => {});
      throw err;
    }
  }
  return handle;
}

/**
 * For a command-line tool's main: Postgres as above, with the tool's logs on stderr (warnings
 * only, unless LOG_LEVEL=debug); null after printing why it could not be opened.
 */
export async function openPostgresOrSay(config: Pick<Config, "databaseUrl" | "dataDir" | "logLevel">, tool: string): Promise<ToolPostgres | null> {
  const log = createLogger(config.logLevel === "debug" ? "debug" : "warn", { tool }, (line) => void process.stderr.write(line + "\n"));
  try {
    return await openPostgresForTool(config, log);
  } catch (err) {
    console.error(`${tool}: cannot open Postgres: ${(err as Error)?.message ?? String(err)}`);
    return null;
  }
}
