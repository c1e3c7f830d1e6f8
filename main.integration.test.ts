import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./infra/net";
import { until } from "./infra/testing/wait";
import { printed, spawnChild, stopChild, type Child } from "./infra/testing/processes";

// The quick start as a user runs it: `bun main.ts` with no chain configured, then Ctrl-C, then again.
// Every start is stopped in the `finally`, whatever the outcome.

describe("npm start (all-in-one, embedded engines, simulator)", () => {
  test("boots, serves live simulated data, stops cleanly on SIGINT and reuses its data", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "acp-main-"));
    chmodSync(dataDir, 0o755);
    const port = await freePort();
    const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), SIMULATOR_TPS: "40", LOG_LEVEL: "info", SOLANA_RPC_URL: "", DATABASE_URL: "", CLICKHOUSE_URL: "" };
    const base = `http://127.0.0.1:${port}`;
    const started: Child[] = [];
    const start = () => {
      const child = spawnChild([process.execPath, "main.ts"], { cwd: import.meta.dir, env });
      started.push(child);
      return child;
    };
    const stopped = async (child: Child, signal: NodeJS.Signals) => {
      const code = await stopChild(child, signal, 60_000);
      const log = await printed(child);
      if (code !== 0) console.error(log);
      expect(code).toBe(0);
      return log;
    };
    try {
      const first = start();
      await until("readiness", async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const stats = await until("simulated trades", async () => {
        const s: any = await (await fetch(`${base}/v1/public/stats`)).json();
        return s.trades24h > 0 && s.agents.total > 0 ? s : undefined;
      });
      // the demo is not $0: the simulator plays a SOL price (a spec source value) when none is configured
      expect(stats.solUsd).toBeGreaterThan(0);
      expect(stats.volume24hUsd).toBeGreaterThan(0);
      const price = await fetch(`${base}/v1/public/price/sol`);
      expect(price.status).toBe(200);
      expect(await price.json()).toMatchObject({ usd: expect.any(Number), source: "aggregator" });
      // its coins get a description and an image this service serves, through the coin-metadata job
      const coin = await until("a coin with its image and description", async () => {
        const list: any = await (await fetch(`${base}/v1/public/agents?sort=new&limit=50`)).json();
        return list.items.find((a: any) => a.imageUrl && a.description);
      });
      expect(coin.agentUrl).toBe(`http://localhost:${port}/agents/${coin.mint}`); // PUBLIC_BASE_URL follows PORT
      expect(coin.market.priceUsd).toBeGreaterThan(0);
      const image = await fetch(coin.imageUrl.replace("localhost", "127.0.0.1"));
      expect(image.status).toBe(200);
      expect(image.headers.get("content-type")).toStartWith("image/png");
      expect([...new Uint8Array(await image.arrayBuffer()).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
      // launches work out of the box: a development vault key generated once under DATA_DIR
      expect(statSync(join(dataDir, "vault-encryption.key")).mode & 0o777).toBe(0o600);
      const firstLog = await stopped(first, "SIGINT");
      expect(firstLog).toContain("the simulator plays a platform through the webhook");
      expect(firstLog).toContain('"msg":"stopped"');
      expect(firstLog).toContain("the SOL price is simulated");
      expect(firstLog).toContain("generated a development key; production must set its own");

      const second = start();
      await until("readiness after restart", async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
      const again: any = await (await fetch(`${base}/v1/public/stats`)).json();
      expect(again.agents.total).toBeGreaterThanOrEqual(stats.agents.total);
      expect(again.trades24h).toBeGreaterThanOrEqual(stats.trades24h);
      const secondLog = await stopped(second, "SIGTERM");
      expect(secondLog).toContain("simulator resumed");
      expect(secondLog).not.toContain("clickhouse migrations applied"); // already applied: idempotent start
    } finally {
      for (const child of started) await stopChild(child); // SIGTERM first: a killed main.ts would leave its Postgres behind
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  /** Starts main.ts on `dataDir` with `env`; the exit code, how long it ran and what it printed. */
  async function failedStart(dataDir: string, env: Record<string, string>) {
    const child = spawnChild([process.execPath, "main.ts"], {
      cwd: import.meta.dir,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: "info", SOLANA_RPC_URL: "", DATABASE_URL: "", CLICKHOUSE_URL: "", KAFKA_BROKERS: "", ...env },
    });
    const began = Date.now();
    try {
      // a deadline, not a synchronisation: a start that neither serves nor ends is the failure
      const code = await Promise.race([child.exited, Bun.sleep(30_000).then(() => "still running after 30 s")]);
      const ms = Date.now() - began;
      await stopChild(child, "SIGKILL");
      return { code, ms, out: await printed(child) };
    } finally {
      await stopChild(child, "SIGKILL");
    }
  }

  test("an engine that fails at start: exit 1 within seconds, one clear line, no stack trace", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "acp-main-fail-"));
    chmodSync(dataDir, 0o755);
    try {
      // a Postgres data folder from another major version: the server refuses it at once
      mkdirSync(join(dataDir, "postgres", "data"), { recursive: true, mode: 0o700 });
      writeFileSync(join(dataDir, "postgres", "data", "PG_VERSION"), "9\n");
      if (process.getuid?.() === 0) Bun.spawnSync(["chown", "-R", "postgres:postgres", join(dataDir, "postgres", "data")]);
      const run = await failedStart(dataDir, {});
      expect(run.code).toBe(1);
      expect(run.ms).toBeLessThan(20_000);
      const errors = run.out.split("\n").filter((l) => l.includes('"level":"error"'));
      expect(errors).toHaveLength(1);
      expect(JSON.parse(errors[0]!).msg).toStartWith(`cannot start: embedded postgres under ${join(dataDir, "postgres")}: `);
      expect(run.out).not.toMatch(/^\s+at /m); // no stack trace
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("ClickHouse failing after Postgres started: exit 1 promptly, and the embedded Postgres is stopped", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "acp-main-fail-"));
    chmodSync(dataDir, 0o755);
    try {
      const run = await failedStart(dataDir, { CLICKHOUSE_URL: `http://127.0.0.1:${await freePort()}` }); // nothing listens there
      expect(run.code).toBe(1);
      expect(run.ms).toBeLessThan(30_000);
      expect(run.out).toContain("embedded postgres started");
      expect(run.out).toContain("cannot start: clickhouse (CLICKHOUSE_URL)");
      expect(run.out).not.toMatch(/^\s+at /m);
      const pidFile = join(dataDir, "postgres", "data", "postmaster.pid");
      expect(existsSync(pidFile) ? readFileSync(pidFile, "utf8") : "no server left").toBe("no server left");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("a second start beside a running one exits 1 naming it; after a SIGKILL its Postgres stops too and the next start serves; an orphaned Postgres is stopped by the next start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "acp-main-kill-"));
    chmodSync(dataDir, 0o755);
    const port = await freePort();
    const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "info", SOLANA_RPC_URL: "", DATABASE_URL: "", CLICKHOUSE_URL: "", KAFKA_BROKERS: "" };
    const base = `http://127.0.0.1:${port}`;
    const pidFile = join(dataDir, "postgres", "data", "postmaster.pid");
    const postmaster = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : null);
    // alive and not a zombie (an exited process nobody reaped, where PID 1 does not reap)
    const running = (pid: number) => existsSync(`/proc/${pid}`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    const started: Child[] = [];
    const spawnLogged = (argv: string[], extra: Record<string, string> = {}) => {
      const child = spawnChild(argv, { cwd: import.meta.dir, env: { ...env, ...extra } });
      started.push(child);
      return child;
    };
    const start = (extra: Record<string, string> = {}) => spawnLogged([process.execPath, "main.ts"], extra);
    const ready = (what: string) => until(what, async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
    const postgresPids: number[] = [];
    try {
      const first = start();
      await ready("readiness");
      const beside = start({ PORT: String(await freePort()) });
      expect(await beside.exited).toBe(1);
      const errors = (await printed(beside)).split("\n").filter((l) => l.includes('"level":"error"'));
      expect(errors).toHaveLength(1);
      expect(JSON.parse(errors[0]!).msg).toContain(`another service (pid ${first.pid}) runs on this DATA_DIR`);
      expect((await fetch(`${base}/readyz`)).ok).toBe(true); // the running one is untouched

      // SIGKILL: the kernel tells its Postgres (setpriv --pdeathsig), which shuts down by itself
      const killed = postmaster()!;
      postgresPids.push(killed);
      const serverArgv = readFileSync(`/proc/${killed}/cmdline`, "utf8").split("\0").filter(Boolean); // postgres -D … -p … -c …
      first.kill("SIGKILL");
      await first.exited;
      await until("the killed service's Postgres to stop", async () => (running(killed) ? undefined : true), 30_000);
      const second = start();
      await ready("readiness after the SIGKILL");
      expect(await stopChild(second, "SIGTERM", 60_000)).toBe(0);

      // a Postgres on the data folder with no service holding DATA_DIR (left by a killed run where
      // the kernel could not stop it): the next start stops it, says so once, and serves
      const asPostgres = process.getuid?.() === 0 ? ["setpriv", "--reuid", "postgres", "--regid", "postgres", "--clear-groups", "--"] : [];
      const orphan = spawnLogged([...asPostgres, ...serverArgv]);
      const orphanPid = await until("the orphan to be ready", async () => (readFileSync(pidFile, "utf8").includes("ready") ? postmaster()! : undefined), 30_000);
      postgresPids.push(orphanPid);
      const third = start();
      await ready("readiness with an orphaned Postgres");
      expect(running(orphanPid)).toBe(false);
      expect(await orphan.exited).toBe(0); // a clean (fast) shutdown
      expect(await stopChild(third, "SIGTERM", 60_000)).toBe(0);
      expect((await printed(third)).split("\n").filter((l) => l.includes("stopped the server an earlier run left behind"))).toHaveLength(1);
    } finally {
      for (const child of started) await stopChild(child);
      for (const pid of [...postgresPids, postmaster()]) if (pid && running(pid)) process.kill(pid, "SIGINT"); // never leave a Postgres behind
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
