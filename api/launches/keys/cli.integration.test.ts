/**
 * `bun run keys` as a real process: against DATABASE_URL (a fresh database it migrates),
 * attached to an embedded Postgres a "service" is running under DATA_DIR, and starting
 * (then stopping) that embedded Postgres itself when nothing runs.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testEngines } from "../../../infra/testing/engines";
import { connectSql, startEmbeddedPostgres } from "../../../infra/postgres";
import { createLogger } from "../../../infra/log";
import { createApiKeyAuth } from "../api-keys";
import { runChild } from "../../../infra/testing/processes";

const ROOT = join(import.meta.dir, "..", "..", "..");

async function keys(args: string[], env: Record<string, string>, viaScript = false) {
  const argv = viaScript ? [process.execPath, "run", "keys", ...args] : [process.execPath, "api/launches/keys/main.ts", ...args];
  return runChild(argv, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "warn", DATABASE_URL: "", ...env } });
}

const keyOf = (stdout: string) => /^ {2}key: +(acp_live_\S+)$/m.exec(stdout)?.[1];
const prefixOf = (stdout: string) => /^ {2}prefix: +(\S+)$/m.exec(stdout)?.[1];

describe("keys CLI", () => {
  test("with DATABASE_URL: create prints the key once, it authenticates; list hides it; revoke; bad usage exits 2", async () => {
    const engines = await testEngines();
    const database = `keys_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
    await engines.sql.unsafe(`CREATE DATABASE ${database}`);
    const url = engines.pgUrl.replace(/\/postgres$/, `/${database}`);
    const env = { DATABASE_URL: url };
    const sql = connectSql(url, 2);
    try {
      const help = await keys(["--help"], env, true);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("bun run keys create --name <name> --scope <scope>");

      for (const bad of [[], ["frobnicate"], ["create"], ["create", "--name", "x"], ["create", "--name", "x", "--scope", "admin"], ["create", "--name", "x", "--scope", "launch", "--colour", "red"], ["revoke"], ["revoke", "a", "b"], ["list", "extra"]]) {
        const r = await keys(bad, env);
        expect({ bad, code: r.code }).toEqual({ bad, code: 2 });
        expect(r.stderr).toContain("usage:");
      }

      const created = await keys(["create", "--name", "integrator one", "--scope", "launch"], env);
      expect(created.code).toBe(0);
      const key = keyOf(created.stdout)!;
      const prefix = prefixOf(created.stdout)!;
      expect(key).toMatch(/^acp_live_/);
      expect(key.startsWith(prefix)).toBe(true);
      expect(created.stdout).toMatch(/^ {2}id: +[0-9a-f-]{36}$/m);
      expect(created.stderr).toContain("not shown again");

      // the key the CLI printed authenticates (the CLI migrated the fresh database)
      const who = await createApiKeyAuth(sql).authenticate(`Bearer ${key}`, "launch");
      expect(who).toMatchObject({ name: "integrator one", prefix, scopes: ["launch"] });

      const listed = await keys(["list"], env);
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^id +name +prefix +scopes +created +last used +revoked$/);
      expect(lines[1]).toContain(who.id);
      expect(lines[1]).toContain(prefix);
      expect(lines[1]).toContain("integrator one");
      expect(listed.stdout + listed.stderr).not.toContain(key.slice(prefix.length));

      const revoked = await keys(["revoke", prefix], env);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toContain(`revoked ${prefix}`);
      const err = await createApiKeyAuth(sql).authenticate(`Bearer ${key}`, "launch").catch((e) => e);
      expect(err.code).toBe("API_KEY_REVOKED");
      expect((await keys(["list"], env)).stdout.split("\n")[1]).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/); // revoked column filled

      const missing = await keys(["revoke", "acp_live_nothere1"], env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("no API key");
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 120_000);

  test("without DATABASE_URL: attaches to the embedded Postgres the service holds; starts and stops it when none runs", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "acp-keys-cli-"));
    chmodSync(dataDir, 0o755); // the embedded Postgres runs as the postgres user when run as root
    const env = { DATA_DIR: dataDir };
    const pidFile = join(dataDir, "postgres", "data", "postmaster.pid");
    let service: { url: string; stop(): Promise<void> } | null = await startEmbeddedPostgres(join(dataDir, "postgres"), createLogger("warn"));
    try {
      // the "service" holds the data folder; a second server there could not start, so success means attached
      const created = await keys(["create", "--name", "attached", "--scope", "launch"], env);
      expect({ code: created.code, stderr: created.stderr }).toMatchObject({ code: 0 });
      const sql = connectSql(service.url, 1);
      try {
        const rows = await sql`SELECT name, prefix FROM api_keys`;
        expect(rows.map((r) => ({ ...r }))).toEqual([{ name: "attached", prefix: prefixOf(created.stdout)! }]);
      } finally {
        await sql.end({ timeout: 1 });
      }
      expect(existsSync(pidFile)).toBe(true); // the tool left the service's server running

      await service.stop();
      service = null;
      expect(existsSync(pidFile)).toBe(false);

      // nothing runs: the tool starts the embedded Postgres, does its job, stops it
      const listed = await keys(["list"], env);
      expect({ code: listed.code, stderr: listed.stderr }).toMatchObject({ code: 0 });
      expect(listed.stdout).toContain(prefixOf(created.stdout)!);
      expect(existsSync(pidFile)).toBe(false);
    } finally {
      await service?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
  test("a DATA_DIR copied while its service ran: the tool refuses the copied postmaster.pid instead of writing keys into the original's database", async () => {
    const original = mkdtempSync(join(tmpdir(), "acp-keys-orig-"));
    const copy = mkdtempSync(join(tmpdir(), "acp-keys-copy-"));
    chmodSync(original, 0o755);
    const service = await startEmbeddedPostgres(join(original, "postgres"), createLogger("warn"));
    try {
      // `cp -r data data-copy` while the service runs: credentials and postmaster.pid come along
      mkdirSync(join(copy, "postgres", "data"), { recursive: true });
      cpSync(join(original, "postgres", "credentials.json"), join(copy, "postgres", "credentials.json"));
      cpSync(join(original, "postgres", "data", "postmaster.pid"), join(copy, "postgres", "data", "postmaster.pid"));
      const created = await keys(["create", "--name", "into the copy", "--scope", "launch"], { DATA_DIR: copy });
      expect(created.code).toBe(1);
      expect(created.stdout).not.toContain("created API key");
      expect(created.stderr).toContain("it was copied along with DATA_DIR; remove that file");
      const sql = connectSql(service.url, 1);
      try {
        expect((await sql`SELECT to_regclass('api_keys') AS t`)[0]!.t).toBeNull(); // nothing written to the original
      } finally {
        await sql.end({ timeout: 1 });
      }
    } finally {
      await service.stop();
      rmSync(original, { recursive: true, force: true });
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});
