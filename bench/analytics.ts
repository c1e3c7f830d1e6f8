/**
 * The analytics reads alone, without the ingest phases of `npm run bench`: platform
 * stats, the analytics overview (every range), tokenomics and the payout feeds, uncached
 * and cached, over 10k coins, `--trades` trades (default 1,000,000) over 30 days and the
 * treasury's tables (bench/dataset.ts loadTreasury), with the process's CPU time per uncached request.
 * Run: `bun run bench/analytics.ts --trades 1000000 --samples 1000`; `--profile` prints each engine read's own time instead;
 * `--only analytics,data-api` measures only those lists of endpoints (default every list).
 * `--dir DIR` keeps the engines' data in DIR and reuses it when it holds the same `--trades` (the data's times are
 * those of its load: as it ages, the windows ending now hold fewer of its rows).
 */
import { parseArgs } from "node:util";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { enginesIn, freshEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { loadConfig } from "../infra/config";
import { wirePlatform } from "../compose/wiring";
import { createSolPriceService } from "../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { backgroundMergesSettled, benchMints, loadAgents, loadTrades, loadTreasury } from "./dataset";
import { measureUrl, percentile, round } from "./measure";

const { values: args } = parseArgs({
  options: { trades: { type: "string", default: "1000000" }, samples: { type: "string", default: "1000" }, seconds: { type: "string", default: "2" }, profile: { type: "boolean", default: false }, dir: { type: "string" }, only: { type: "string" } },
});
const AGENTS = 10_000;
const TREASURY = "TreasuryBench111111111111111111111111111111";
const say = (msg: string) => console.error(`[bench:analytics] ${msg}`);

if (args.dir && existsSync(args.dir) && !existsSync(join(args.dir, "dataset.json"))) throw new Error(`${args.dir} holds no complete dataset (a load stopped?): remove it`);
const engines = args.dir ? await enginesIn(args.dir, 20) : await freshEngines("acp-bench-analytics", 20);
const { ch, sql } = engines;
const log = createLogger("warn");
const configs = simulatedConfigRegistry(fixtureSimConfigs(7));
const platformToken = (await benchMints(ch, 2))[1]!;
const config = loadConfig({ SIMULATOR: "off", PUBLIC_BASE_URL: "https://agents.example", DATA_API_RATE_PER_MINUTE: "0", TREASURY_ADDRESS: TREASURY, PLATFORM_TOKEN_MINT: platformToken });
const price = createSolPriceService([fixedPriceSourceTestDouble(150)], log); // loopback test double
const wire = (responseCache: boolean) => wirePlatform({ config, log, engines: { ch, sql }, configs, webhookSecret: null, price, responseCache });
const [uncached, cached] = [await wire(false), await wire(true)];
const a = uncached.app.listen({ port: 0, hostname: "127.0.0.1" });
const b = cached.app.listen({ port: 0, hostname: "127.0.0.1" });

// a kept dataset (--dir) says what it holds and when it was loaded
const marker = args.dir ? join(args.dir, "dataset.json") : null;
const kept = marker && existsSync(marker) ? (JSON.parse(readFileSync(marker, "utf8")) as { trades: number; agents: number; loadedAt: string }) : null;
if (kept && (kept.trades !== Number(args.trades) || kept.agents !== AGENTS)) throw new Error(`${args.dir} holds ${kept.trades} trades of ${kept.agents} coins: use another --dir`);
let mints: string[];
if (kept) {
  mints = await benchMints(ch, AGENTS);
  say(`reusing ${kept.trades} trades loaded at ${kept.loadedAt} (${round((Date.now() - Date.parse(kept.loadedAt)) / 3_600_000, 1)} h ago); merges settled after ${await backgroundMergesSettled(ch)} s`);
} else {
  mints = await loadAgents(ch, sql, configs.launch!, AGENTS);
  const t = performance.now();
  const loadedAt = new Date().toISOString();
  await loadTrades(ch, { offset: 0, count: Number(args.trades), total: Number(args.trades), agents: AGENTS, days: 30, config: configs.launch!.address });
  await loadTreasury(ch, { agents: AGENTS, days: 30, treasury: TREASURY, platformToken, claimsPerCoin: 6 });
  say(`loaded ${args.trades} trades and the treasury's tables in ${round((performance.now() - t) / 1000, 1)} s; merges settled after ${await backgroundMergesSettled(ch)} s`);
  if (marker) writeFileSync(marker, JSON.stringify({ trades: Number(args.trades), agents: AGENTS, loadedAt }));
}

const hot = mints[0]!;
// the platform-wide reads of issue 11, with two Data API endpoints as baselines (the machine is shared: compare with these)
const analytics: [string, string][] = [
  ["platform stats", "/v1/platform/stats"],
  ["analytics 24h", "/v1/analytics/overview?range=24h"],
  ["analytics 7d", "/v1/analytics/overview?range=7d"],
  ["analytics 30d", "/v1/analytics/overview?range=30d"],
  ["analytics all", "/v1/analytics/overview?range=all"],
  ["tokenomics", "/v1/tokenomics"],
  ["feed payouts", "/v1/feed?kinds=creator_payout,platform_buyback"],
  ["feed (default kinds)", "/v1/feed"],
  ["daemon feed payouts", `/v1/daemons/${hot}/feed?kinds=creator_payout`],
  ["baseline: Data API stats", "/v1/public/stats"],
  ["baseline: tokens", "/v1/tokens"],
];
// ---- the Data API (/v1/public), every read of issue 15's target; `hot` is the coin with the most trades ----
const hotTradesPage2 = await secondPageOf(`/v1/public/agents/${hot}/trades`);
const dataApi: [string, string][] = [
  ["data: agents sort=new", "/v1/public/agents"],
  ["data: agents sort=marketcap", "/v1/public/agents?sort=marketcap"],
  ["data: agents sort=trending", "/v1/public/agents?sort=trending"],
  ["data: agents sort=volume", "/v1/public/agents?sort=volume"],
  ["data: agents q=", "/v1/public/agents?q=coin%2042"],
  ["data: agent", `/v1/public/agents/${hot}`],
  ["data: agent trades", `/v1/public/agents/${hot}/trades`],
  ["data: agent trades, page 2", hotTradesPage2],
  ["data: agent trades limit=100", `/v1/public/agents/${hot}/trades?limit=100`],
  ["data: agent trades, quiet coin", `/v1/public/agents/${mints.at(-1)}/trades`],
  ["data: agent activity", `/v1/public/agents/${hot}/activity`],
  ["data: agent activity kinds=launch,trade", `/v1/public/agents/${hot}/activity?kinds=launch,trade`],
  ["data: activity", "/v1/public/activity"],
  ["data: activity kinds=trade", "/v1/public/activity?kinds=trade"],
  ["data: stats", "/v1/public/stats"],
  ["data: configs", "/v1/public/configs"],
];
// ---- end of the Data API list ----
/** `--only a,b`: the lists measured (default every list) */
const lists: Record<string, [string, string][]> = { analytics, "data-api": dataApi };
const chosen = args.only ? args.only.split(",") : Object.keys(lists);
for (const name of chosen) if (!lists[name]) throw new Error(`--only: no list ${name} (${Object.keys(lists).join(", ")})`);
const endpoints = chosen.flatMap((name) => lists[name]!);
/** The path of the page after the first of a list (its nextCursor). */
async function secondPageOf(path: string): Promise<string> {
  const first = (await (await fetch(`http://127.0.0.1:${a.server!.port}${path}`)).json()) as { nextCursor: string | null };
  if (!first.nextCursor) throw new Error(`${path}: one page only`);
  return `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(first.nextCursor)}`;
}
if (args.profile) {
  // the median time of each ClickHouse read behind each endpoint (20 uncached calls each). chDB runs parameterised
  // queries one at a time anyway; they are queued here instead, so each time is the read's own, not its wait.
  const times = new Map<string, number[]>();
  const query = ch.query.bind(ch);
  let queue: Promise<unknown> = Promise.resolve();
  (ch as { query: typeof ch.query }).query = ((q: string, params?: Record<string, unknown>) => {
    const run = queue.then(async () => {
      const t0 = performance.now();
      try {
        return await query(q, params);
      } finally {
        const key = q.replace(/\s+/g, " ").trim().slice(0, 110);
        times.set(key, [...(times.get(key) ?? []), performance.now() - t0]);
      }
    });
    queue = run.catch(() => {});
    return run;
  }) as typeof ch.query;
  const paths = endpoints.map(([, path]) => path);
  for (const path of paths) {
    times.clear();
    const total: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await fetch(`http://127.0.0.1:${a.server!.port}${path}`).then((r) => r.arrayBuffer());
      total.push(performance.now() - t0);
    }
    const med = (xs: number[]) => round([...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!);
    console.log(`${path}: median ${med(total)} ms`);
    for (const [k, v] of times) console.log(`   ${med(v)} ms  ${k}`);
  }
  await engines.stop();
  process.exit(0);
}
const base = `http://127.0.0.1:${a.server!.port}`;
const cachedBase = `http://127.0.0.1:${b.server!.port}`;
/**
 * CPU time of this process (the server, chDB's threads and the client) per uncached request, over 100 sequential
 * requests: less sensitive than wall time to the other work on a shared machine (the embedded Postgres is not counted).
 */
async function cpuPerRequest(url: string): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < 100; i++) await fetch(url).then((r) => r.arrayBuffer());
  const used = process.cpuUsage(before);
  return round((used.user + used.system) / 1000 / 100);
}
const lines = ["| endpoint | trades | uncached p50 / p99 ms | uncached CPU ms/request | cached p50 / p99 ms |", "|---|---|---|---|---|"];
for (const [name, path] of endpoints) {
  const first = await fetch(base + path);
  if (!first.ok) throw new Error(`${path}: ${first.status} ${await first.text()}`);
  const u = await measureUrl(base + path, { samples: Number(args.samples), concurrency: 4, seconds: Number(args.seconds) });
  const cpu = await cpuPerRequest(base + path);
  await fetch(cachedBase + path);
  const c = await measureUrl(cachedBase + path, { samples: Number(args.samples), concurrency: 4, seconds: Number(args.seconds) });
  say(`${name}: uncached p50 ${u.p50} p99 ${u.p99} ms, ${cpu} ms CPU; cached p50 ${c.p50} p99 ${c.p99} ms${u.errors + c.errors ? ` ERRORS ${u.errors + c.errors}` : ""}`);
  lines.push(`| ${name} | ${Number(args.trades).toLocaleString("en")} | ${u.p50} / ${u.p99} | ${cpu} | ${c.p50} / ${c.p99} |`);
}
if (chosen.includes("data-api")) {
  // the floor under every read: one query through the same client (chdb's queryBindAsync, JSONEachRow, the parse), and
  // one HTTP answer that reads no engine (the SOL price, cached in the process)
  const floors: [string, () => Promise<unknown>][] = [
    ["floor: SELECT 1 (ch.query)", () => ch.query("SELECT 1")],
    ["floor: SELECT {x:UInt8} (ch.query)", () => ch.query("SELECT {x:UInt8} AS x", { x: 1 })],
    ["floor: HTTP, no engine (/v1/public/price/sol)", () => fetch(`${base}/v1/public/price/sol`).then((r) => r.arrayBuffer())],
  ];
  for (const [name, run] of floors) {
    const times: number[] = [];
    const before = process.cpuUsage();
    for (let i = 0; i < Number(args.samples); i++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    const used = process.cpuUsage(before);
    times.sort((x, y) => x - y);
    const cpu = round((used.user + used.system) / 1000 / times.length);
    say(`${name}: p50 ${round(percentile(times, 50))} p99 ${round(percentile(times, 99))} ms, ${cpu} ms CPU`);
    lines.push(`| ${name} | | ${round(percentile(times, 50))} / ${round(percentile(times, 99))} | ${cpu} | |`);
  }
}
console.log(lines.join("\n"));
a.stop();
b.stop();
await engines.stop();
process.exit(0);
