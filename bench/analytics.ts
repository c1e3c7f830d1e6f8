/**
 * The analytics reads alone, without the ingest phases of `npm run bench`: platform
 * stats, the analytics overview (every range), tokenomics and the payout feeds, uncached
 * and cached, over 10k coins, `--trades` trades (default 1,000,000) over 30 days and the
 * treasury's tables (bench/dataset.ts loadTreasury), with the process's CPU time per uncached request.
 * Run: `bun run bench/analytics.ts --trades 1000000 --samples 1000`; `--profile` prints each engine read's own time instead;
 * `--only analytics,feed` measures only the endpoints whose name holds one of these (and the baselines).
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
import { measureUrl, round } from "./measure";

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
  const paths = [
    "/v1/platform/stats", "/v1/analytics/overview?range=24h", "/v1/analytics/overview?range=7d", "/v1/analytics/overview?range=30d",
    "/v1/analytics/overview?range=all", "/v1/tokenomics", "/v1/feed?kinds=creator_payout,platform_buyback", "/v1/feed", `/v1/daemons/${hot}/feed?kinds=creator_payout`,
    "/v1/tokens",
  ];
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
const endpoints: [string, string][] = [
  ["platform stats", "/v1/platform/stats"],
  ["analytics 24h", "/v1/analytics/overview?range=24h"],
  ["analytics 7d", "/v1/analytics/overview?range=7d"],
  ["analytics 30d", "/v1/analytics/overview?range=30d"],
  ["analytics all", "/v1/analytics/overview?range=all"],
  ["tokenomics", "/v1/tokenomics"],
  ["feed payouts", "/v1/feed?kinds=creator_payout,platform_buyback"],
  ["feed (default kinds)", "/v1/feed"],
  ["daemon feed payouts", `/v1/daemons/${hot}/feed?kinds=creator_payout`],
  // baselines measured in the same run (the machine is shared: compare with these)
  ["baseline: Data API stats", "/v1/public/stats"],
  ["baseline: tokens", "/v1/tokens"],
];
// --only a,b: the endpoints whose name holds one of these (the baselines are always measured)
const only = args.only?.split(",");
const measured = endpoints.filter(([name]) => !only || name.startsWith("baseline") || only.some((o) => name.includes(o)));
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
for (const [name, path] of measured) {
  const first = await fetch(base + path);
  if (!first.ok) throw new Error(`${path}: ${first.status} ${await first.text()}`);
  const u = await measureUrl(base + path, { samples: Number(args.samples), concurrency: 4, seconds: Number(args.seconds) });
  const cpu = await cpuPerRequest(base + path);
  await fetch(cachedBase + path);
  const c = await measureUrl(cachedBase + path, { samples: Number(args.samples), concurrency: 4, seconds: Number(args.seconds) });
  say(`${name}: uncached p50 ${u.p50} p99 ${u.p99} ms, ${cpu} ms CPU; cached p50 ${c.p50} p99 ${c.p99} ms${u.errors + c.errors ? ` ERRORS ${u.errors + c.errors}` : ""}`);
  lines.push(`| ${name} | ${Number(args.trades).toLocaleString("en")} | ${u.p50} / ${u.p99} | ${cpu} | ${c.p50} / ${c.p99} |`);
}
console.log(lines.join("\n"));
a.stop();
b.stop();
await engines.stop();
process.exit(0);
