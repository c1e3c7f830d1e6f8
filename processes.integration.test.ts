import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./infra/net";
import { until } from "./infra/testing/wait";
import { testEngines } from "./infra/testing/engines";
import { testKafkaBrokers } from "./infra/testing/kafka";
import { startClickhouseHttpDouble } from "./infra/testing/clickhouse-http-double-process";
import { FIXTURES } from "./compose/testing/platform";
import { Keypair } from "@solana/web3.js";
import { launchTestPlatform, signAsCreator, LAUNCH_CONFIG } from "./compose/testing/launch";
import { printed, spawnChild, stopChild, type Child } from "./infra/testing/processes";
import { connectSql, type Sql } from "./infra/postgres";
import { openTestSocket, type TestSocket } from "./infra/testing/ws-client";
import { appendStdout } from "./api/daemons/store";

// The `ingest` and `api` processes of the scaled mode, as separate processes: they start,
// answer health and readiness, do their one job, and stop with exit code 0 on SIGTERM.
// Each is stopped in a `finally` whatever the outcome (and by the global teardown).
const SECRET = "processes-test-secret-0123456789";

function spawnProcess(entry: string, env: Record<string, string>): Child {
  return spawnChild([process.execPath, join(import.meta.dir, entry)], {
    cwd: import.meta.dir,
    env: { ...process.env, LOG_LEVEL: "warn", SOLANA_RPC_URL: "", ...env },
  });
}

/** Waits for /readyz; if the process exits or never gets there, stops it and fails with what it printed. */
async function ready(name: string, proc: Child, base: string) {
  try {
    const outcome = await until(`${name} ready`, async () => {
      if (proc.exitCode !== null) return "exited";
      return (await fetch(`${base}/readyz`).catch(() => null))?.ok ? "ready" : undefined;
    });
    if (outcome === "exited") throw new Error(`${name} exited before it was ready`);
  } catch (err) {
    await stopChild(proc, "SIGKILL");
    throw new Error(`${(err as Error).message}; exit code ${proc.exitCode}; it printed:\n${await printed(proc)}`);
  }
}

async function stop(proc: Child) {
  const code = await stopChild(proc);
  if (code !== 0) console.error(await printed(proc));
  return code;
}

describe("scaled-mode processes", () => {
  test("ingest: the webhook publishes to Kafka; health, readiness, metrics; clean SIGTERM", async () => {
    const port = await freePort();
    const ingest = spawnProcess("ingest/main.ts", {
      PORT: String(port),
      KAFKA_BROKERS: (await testKafkaBrokers()).join(","),
      KAFKA_TOPIC: `chain.transactions.proc-${randomUUID().slice(0, 8)}`,
      KAFKA_PARTITIONS: "1",
      HELIUS_WEBHOOK_SECRET: SECRET,
    });
    const base = `http://127.0.0.1:${port}`;
    try {
      await ready("ingest", ingest, base);
      const fixture = JSON.parse(readFileSync(`${FIXTURES}helius-devnet/dbc-buy.enhanced.json`, "utf8"));
      const res = await fetch(`${base}/v1/ingest/helius`, { method: "POST", headers: { authorization: SECRET }, body: JSON.stringify([fixture]) });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: 1, undecodable: 0 });
      expect((await fetch(`${base}/v1/ingest/helius`, { method: "POST", headers: { authorization: "wrong" }, body: "[]" })).status).toBe(401);
      expect(await (await fetch(`${base}/metrics`)).text()).toContain("acp_ingest_published_batches_total 1");
      expect((await fetch(`${base}/v1/public/agents`)).status).toBe(404); // the Data API is the api process's
      expect(await stop(ingest)).toBe(0);
    } finally {
      await stopChild(ingest);
    }
  }, 120_000);

  test("api: the Data API over a Postgres server and ClickHouse over HTTP; clean SIGTERM", async () => {
    const engines = await testEngines();
    const database = `procs_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
    await engines.sql.unsafe(`CREATE DATABASE ${database}`);
    const clickhouse = await startClickhouseHttpDouble();
    const port = await freePort();
    const api = spawnProcess("api/main.ts", {
      PORT: String(port),
      DATABASE_URL: engines.pgUrl.replace(/\/postgres$/, `/${database}`),
      CLICKHOUSE_URL: clickhouse.url,
      SIMULATOR: "on", // its configs only: nothing is simulated in the api process
    });
    const base = `http://127.0.0.1:${port}`;
    let db: Sql | null = null;
    let socket: TestSocket | null = null;
    try {
      await ready("api", api, base);
      // the realtime channel: a stdout line written by another process (this one, as the agents process would) reaches the api process's socket
      db = connectSql(engines.pgUrl.replace(/\/postgres$/, `/${database}`), 2);
      const mint = Keypair.generate().publicKey.toBase58();
      await db`
        INSERT INTO agents (mint, coin_name, symbol, image_url, creator, vault, config, dbc_pool, state, hidden, name, template, category, presence, traits, drive, motto)
        VALUES (${mint}, 'Coin', 'CN', 'https://img.example/c.png', ${mint}, ${mint + "v"}, ${mint + "c"}, ${mint + "p"}, 'awake', false, 'Ada', 'patron', 'rewards', 'influencer', '[]'::jsonb, '', '')`;
      socket = await openTestSocket(`ws://127.0.0.1:${port}/v1/ws`);
      socket.send({ op: "subscribe", topics: [`daemon:${mint}`] });
      expect(await socket.take("subscribed", (f) => f.op === "subscribed" || f.op === "error")).toEqual({ op: "subscribed", topics: [`daemon:${mint}`] });
      const line = await appendStdout(db, mint, { kind: "thinking", body: "written by another process" });
      expect((await socket.take("the line", (f) => f.event === "daemon.stdout")).data).toEqual({ id: line.id.toString(), kind: "thinking", body: "written by another process", meta: {}, createdAt: line.created_at.toISOString() });
      const configs = await fetch(`${base}/v1/public/configs`);
      expect(configs.status).toBe(200);
      expect((await configs.json()).items.map((c: { role: string }) => c.role)).toEqual(["launch", "stock", "legacy"]);
      const agents = await fetch(`${base}/v1/public/agents`);
      expect(agents.status).toBe(200);
      expect(await agents.json()).toEqual({ items: [], nextCursor: null });
      expect((await fetch(`${base}/v1/public/price/sol`)).status).toBe(503); // no price source configured
      expect((await fetch(`${base}/v1/ingest/helius`, { method: "POST", body: "[]" })).status).toBe(404); // webhooks are the ingest process's
      expect((await fetch(`${base}/v1/daemons/catalog`)).status).toBe(200);
      // the production wiring's sign-in: a token it does not know signs nobody in
      const check = await fetch(`${base}/v1/daemons/${Keypair.generate().publicKey.toBase58()}/check`, { method: "POST", headers: { authorization: "Bearer not-a-token" } });
      expect([check.status, (await check.json()).error.code]).toEqual([401, "AUTH_REQUIRED"]);
      expect(await stop(api)).toBe(0); // with a socket open and the relay listening
      expect((await socket.closed).code).toBe(1001); // going away: reconnect elsewhere
    } finally {
      await socket?.close();
      await stopChild(api);
      await db?.end({ timeout: 1 });
      await clickhouse.stop();
    }
  }, 120_000);

  test("agents: the launch tracker confirms a launch the submit left pending; health, readiness; clean SIGTERM", async () => {
    const p = await launchTestPlatform();
    const clickhouse = await startClickhouseHttpDouble();
    let agents: Child | null = null;
    try {
      const creator = Keypair.generate();
      const created = await p.create(p.body(creator), `proc-${randomUUID()}`);
      expect(created.status).toBe(201);
      p.rpc.setConfirmMode("never");
      const submitted = await p.call("POST", `/v1/launches/${created.body.id}/submit`, { body: { signedTransaction: signAsCreator(created.body.transaction, creator) } });
      expect(submitted.status).toBe(202);

      const port = await freePort();
      agents = spawnProcess("agents/main.ts", {
        PORT: String(port),
        DATABASE_URL: p.engines.pgUrl,
        CLICKHOUSE_URL: clickhouse.url,
        SOLANA_RPC_URL: p.rpc.url,
        PLATFORM_CONFIGS: `launch:${LAUNCH_CONFIG}`,
        SIMULATOR: "off",
        VAULT_ENCRYPTION_KEY: Buffer.from(p.config.launch.vaultEncryptionKey!).toString("base64"),
      });
      const base = `http://127.0.0.1:${port}`;
      await ready("agents", agents, base);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      p.rpc.setSignatureStatus(submitted.body.signature, "confirmed");
      const status = await until("launch confirmed by the agents process", async () => {
        const view = await p.call("GET", `/v1/launches/${created.body.id}`);
        return view.body.status === "confirmed" ? view.body : undefined;
      });
      expect(status).toMatchObject({ status: "confirmed", error: null });
      expect((await p.engines.sql`SELECT state, status FROM agents WHERE mint = ${created.body.mint}`)[0]).toEqual({ state: "forming", status: "launching" });
      expect(await stop(agents)).toBe(0);
    } finally {
      if (agents) await stopChild(agents);
      p.rpc.setConfirmMode("immediate");
      p.stop();
      await clickhouse.stop();
    }
  }, 120_000);
});
