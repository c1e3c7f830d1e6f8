/**
 * The realtime channel's fan-out: `--sockets` (1,000) websockets on one app process, each
 * subscribed to `--topics` (5) of `--agents` (100) agents' topics, while `--lines` (2,000) stdout
 * lines are written with appendStdout at `--rate` (100) lines a second, round-robin over the
 * agents. Delivery latency = from just before appendStdout is called to the event's arrival at
 * a client, for every (line, subscribed socket) pair; the writer and the sockets live in one
 * load-generator process (one clock), the app (server, relay, hub) in this one, on the same
 * embedded Postgres, so the path is the production one: trigger, NOTIFY, LISTEN, read by id, fan-out.
 * Also timed from appendStdout's return (its commit), to tell Postgres's commit from the relay and fan-out.
 * Run: `bun run bench/ws-fanout.ts [--sockets 1000] [--agents 100] [--topics 5] [--lines 2000] [--rate 100]`.
 * Results: printed, and bench/results/ws-fanout.json.
 */
import { parseArgs } from "node:util";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { connectSql } from "../infra/postgres";
import { appendStdout } from "../api/daemons/store";
import { openTestSocket, type TestSocket } from "../infra/testing/ws-client";

type Plan = { url: string; pgUrl: string; mints: string[]; sockets: number; topics: number; lines: number; rate: number };

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (x: number) => Math.round(x * 100) / 100;

if (process.env.WS_FANOUT_PLAN) await loadGenerator(JSON.parse(process.env.WS_FANOUT_PLAN) as Plan);
else await main();

async function main() {
  const { values } = parseArgs({
    options: { sockets: { type: "string", default: "1000" }, agents: { type: "string", default: "100" }, topics: { type: "string", default: "5" }, lines: { type: "string", default: "2000" }, rate: { type: "string", default: "100" } },
  });
  const n = (k: keyof typeof values) => Number(values[k]);
  const { registryWith, testPlatform } = await import("../compose/testing/platform");
  const { stopTestEngines } = await import("../infra/testing/engines");
  const config = Keypair.generate().publicKey.toBase58();
  const p = await testPlatform(registryWith([{ role: "launch", address: config }]), {
    env: { REALTIME_MAX_SOCKETS_PER_CLIENT: String(n("sockets") + 10), DATA_API_RATE_PER_MINUTE: "0" },
  });
  const mints: string[] = [];
  for (let i = 0; i < n("agents"); i++) {
    const mint = Keypair.generate().publicKey.toBase58();
    mints.push(mint);
    await p.engines.sql`
      INSERT INTO agents (mint, coin_name, symbol, image_url, creator, vault, config, dbc_pool, state, hidden, name, template, category, presence, traits, drive, motto)
      VALUES (${mint}, 'Bench', 'BN', 'https://img.example/b.png', ${mint}, ${mint + "v"}, ${config}, ${mint + "p"}, 'awake', false, 'Bench', 'baseline', 'community', 'influencer', '[]'::jsonb, '', '')`;
  }
  p.app.listen({ port: 0, hostname: "127.0.0.1" });
  const plan: Plan = { url: `ws://127.0.0.1:${p.app.server!.port}/v1/ws`, pgUrl: p.engines.pgUrl, mints, sockets: n("sockets"), topics: n("topics"), lines: n("lines"), rate: n("rate") };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const child = Bun.spawn(["bun", "run", import.meta.path], { env: { ...process.env, WS_FANOUT_PLAN: JSON.stringify(plan) }, stdout: "pipe", stderr: "inherit" });
  const out = await new Response(child.stdout).text();
  const code = await child.exited;
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  try {
    if (code !== 0) throw new Error(`the load generator exited ${code}: ${out.slice(-2000)}`);
    const result = { at: new Date().toISOString(), ...JSON.parse(out.trim().split("\n").at(-1)!), serverCpuPct: round(((cpu.user + cpu.system) / 1e6 / wall) * 100) };
    console.log(JSON.stringify(result, null, 2));
    mkdirSync(join(import.meta.dir, "results"), { recursive: true });
    writeFileSync(join(import.meta.dir, "results", "ws-fanout.json"), JSON.stringify(result, null, 2) + "\n");
  } finally {
    await p.app.stop(true);
    await p.realtime?.stop();
    await stopTestEngines();
  }
  process.exit(code);
}

async function loadGenerator(plan: Plan) {
  const agents = plan.mints.length;
  const subscribers = new Map<string, number>(plan.mints.map((m) => [m, 0]));
  const latencies: number[] = [];
  /** when appendStdout returned, per line (its body): the part of the latency after the write committed */
  const returned = new Map<string, number>();
  const afterReturn: number[] = [];
  let received = 0;
  let expected = 0;
  let allIn: (() => void) | null = null;
  let writing = true;
  const sockets: TestSocket[] = [];
  // socket i listens to `topics` consecutive agents from i: every agent gets sockets × topics / agents listeners
  for (let from = 0; from < plan.sockets; from += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, plan.sockets - from) }, async (_, k) => {
        const i = from + k;
        const s = await openTestSocket(plan.url);
        const mine = Array.from({ length: plan.topics }, (_, j) => plan.mints[(i + j) % agents]!);
        s.send({ op: "subscribe", topics: mine.map((m) => `daemon:${m}`) });
        await s.take("subscribed", (f) => f.op === "subscribed", 60_000);
        mine.forEach((m) => subscribers.set(m, subscribers.get(m)! + 1));
        s.ws.addEventListener("message", (e) => {
          const at = performance.now();
          const f = JSON.parse(String(e.data));
          if (f.event !== "daemon.stdout") return;
          latencies.push(at - Number(f.data.body));
          const committed = returned.get(f.data.body);
          if (committed !== undefined) afterReturn.push(at - committed);
          if (++received === expected && writing === false) allIn?.();
        });
        s.frames.length = 0;
        return s;
      }),
    );
    sockets.push(...batch);
  }
  const sql = connectSql(plan.pgUrl, 4);
  const writeMs: number[] = [];
  const start = performance.now();
  for (let i = 0; i < plan.lines; i++) {
    const due = start + (i * 1000) / plan.rate;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait); // pacing the load, not synchronisation
    const mint = plan.mints[i % agents]!;
    expected += subscribers.get(mint)!;
    const t = performance.now();
    await appendStdout(sql, mint, { kind: "thinking", body: String(t) });
    const back = performance.now();
    returned.set(String(t), back);
    writeMs.push(back - t);
  }
  const writeSeconds = (performance.now() - start) / 1000;
  writing = false;
  if (received < expected) await Promise.race([new Promise<void>((r) => (allIn = r)), Bun.sleep(60_000)]);
  const sorted = [...latencies].sort((x, y) => x - y);
  const w = [...writeMs].sort((x, y) => x - y);
  await Promise.all(sockets.map((s) => s.close()));
  await sql.end({ timeout: 1 });
  console.log(
    JSON.stringify({
      sockets: plan.sockets,
      agents,
      topicsPerSocket: plan.topics,
      lines: plan.lines,
      linesPerSecond: round(plan.lines / writeSeconds),
      deliveries: received,
      expectedDeliveries: expected,
      deliveriesPerSecond: round(received / writeSeconds),
      deliveryMs: { p50: round(pct(sorted, 50)), p90: round(pct(sorted, 90)), p99: round(pct(sorted, 99)), max: round(sorted.at(-1)!) },
      appendStdoutMs: { p50: round(pct(w, 50)), p99: round(pct(w, 99)) },
      // deliveries that arrived after appendStdout returned, timed from that return (the rest arrived before it)
      afterReturnMs: (() => {
        const a = afterReturn.filter((x) => x >= 0).sort((x, y) => x - y);
        return { count: a.length, p50: round(pct(a, 50)), p99: round(pct(a, 99)) };
      })(),
    }),
  );
  process.exit(received === expected ? 0 : 2);
}
