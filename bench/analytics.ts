/**
 * The analytics reads alone, without the ingest phases of `npm run bench`: platform
 * stats, the analytics overview (every range), tokenomics and the payout feeds, uncached
 * and cached, over 10k coins, `--trades` trades (default 1,000,000) over 30 days and the
 * treasury's tables (bench/dataset.ts loadTreasury), with the process's CPU time per uncached request.
 * Run: `bun run bench/analytics.ts --trades 1000000 --samples 1000`; `--profile` prints each engine read's own time instead;
 * `--only analytics,issue11,data-api` measures only those lists of endpoints (default every list); any other `--only`
 * is a regular expression: the endpoints whose name it matches.
 * `--dir DIR` keeps the engines' data in DIR and reuses it when it holds the same `--trades` (the data's times are
 * those of its load: as it ages, the windows ending now hold fewer of its rows).
 */
import { parseArgs } from "node:util";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { enginesIn, freshEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { loadConfig } from "../infra/config";
import { poolApiDeps, wirePlatform } from "../compose/wiring";
import { createSolPriceService } from "../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { backgroundMergesSettled, benchMints, loadAgents, loadTrades, loadTreasury } from "./dataset";
import { measureUrl, percentile, round } from "./measure";
import { createHash } from "node:crypto";
import { Elysia } from "elysia";
import { Keypair } from "@solana/web3.js";
import { poolRoutes } from "../api/pools";
import { createPoolReader } from "../api/pools/chain";
import { DBC_CONFIG_BYTES, DBC_POOL_BYTES } from "../api/pools/testdata";
import { DBC_PROGRAM, startRpcTestDouble } from "../infra/testing/rpc-double";
import { createSolanaRpc } from "../infra/solana-rpc";

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
const base = `http://127.0.0.1:${a.server!.port}`;
const cachedBase = `http://127.0.0.1:${b.server!.port}`;

// ---- issue 11's other endpoints: the coin reads, a coin's feed, the SOL price, pool and quote (their own list) ----
/**
 * GET /v1/tokens/:mint/pool and /quote read the chain: here the loopback RPC test double (infra/testing/rpc-double.ts)
 * serves mainnet DBC pool and config bytes (fixtures/, as api/pools' tests) as the hot coin's pool, a platform_pools row of
 * its own. These routes have no response cache: "uncached" is a reader that keeps no chain read (every answer reads the
 * double over loopback HTTP), "cached" the production reader (poolApiDeps: a pool's read kept 2 s).
 */
async function poolServers() {
  const pool = Keypair.fromSeed(createHash("sha256").update("bench pool").digest()).publicKey.toBase58();
  const launch = configs.launch!.address;
  const rpc = startRpcTestDouble(new Map([[pool, { lamports: 10_000_000, data: DBC_POOL_BYTES, owner: DBC_PROGRAM }], [launch, { lamports: 10_000_000, data: DBC_CONFIG_BYTES, owner: DBC_PROGRAM }]]));
  rpc.setContextSlot(312_456_789);
  rpc.setClockTime(Math.floor(Date.now() / 1000));
  await sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${pool}, ${hot}, 'dbc', ${launch}) ON CONFLICT DO NOTHING`;
  const chain = createSolanaRpc(rpc.url);
  const kept = poolApiDeps(engines, configs, chain, log);
  const serve = (deps: typeof kept) => new Elysia().use(poolRoutes(deps)).listen({ port: 0, hostname: "127.0.0.1" });
  const [u, c] = [serve({ ...kept, reader: createPoolReader({ read: chain.getAccountsAtSlot, ttlMs: 0 }) }), serve(kept)];
  return { base: `http://127.0.0.1:${u.server!.port}`, cachedBase: `http://127.0.0.1:${c.server!.port}`, stop: () => (u.stop(), c.stop(), rpc.stop()) };
}
const pools = await poolServers();
const firstTrades = (await (await fetch(`${base}/v1/tokens/${hot}/trades`)).json()) as { nextCursor: string | null };
if (!firstTrades.nextCursor) throw new Error(`the hot coin ${hot} has a single page of trades`);
/** [name, path, the servers when not the platform's] */
const issue11: [string, string, { base: string; cachedBase: string }?][] = [
  ["tokens sort=new", "/v1/tokens?sort=new"],
  ["tokens sort=marketcap", "/v1/tokens?sort=marketcap"],
  ["tokens sort=trending", "/v1/tokens?sort=trending"],
  ["tokens q search", "/v1/tokens?q=Coin%20421"],
  ["token", `/v1/tokens/${hot}`],
  ["token trades", `/v1/tokens/${hot}/trades`],
  ["token trades, cursor page", `/v1/tokens/${hot}/trades?cursor=${firstTrades.nextCursor}`],
  ["candles 1m", `/v1/tokens/${hot}/candles?interval=1m`],
  ["candles 15m", `/v1/tokens/${hot}/candles?interval=15m`],
  ["candles 1h", `/v1/tokens/${hot}/candles?interval=1h`],
  ["candles 1d", `/v1/tokens/${hot}/candles?interval=1d`],
  ["daemon feed (default kinds)", `/v1/daemons/${hot}/feed`],
  ["SOL price", "/v1/price/sol"],
  ["pool (RPC double)", `/v1/tokens/${hot}/pool`, pools],
  ["quote buy (RPC double)", `/v1/tokens/${hot}/quote?side=buy&amount=100000000`, pools],
  ["quote sell (RPC double)", `/v1/tokens/${hot}/quote?side=sell&amount=1000000000`, pools],
];
// ---- end of issue 11's other endpoints ----
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
/** `--only a,b`: the lists measured (default every list); otherwise a regular expression over the endpoints' names */
type Endpoint = [name: string, path: string, servers?: { base: string; cachedBase: string }];
const lists: Record<string, Endpoint[]> = { analytics, issue11, "data-api": dataApi };
const byList = (args.only ?? Object.keys(lists).join(",")).split(",").every((name) => name in lists);
const chosen = byList ? (args.only ?? Object.keys(lists).join(",")).split(",") : Object.keys(lists);
const endpoints = chosen.flatMap((name) => lists[name]!).filter(([name]) => byList || new RegExp(args.only!).test(name));
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
  const paths = endpoints.filter(([, , servers]) => !servers).map(([, path]) => path);
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
  pools.stop();
  await engines.stop();
  process.exit(0);
}
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
for (const [name, path, servers] of endpoints) {
  const [u0, c0] = servers ? [servers.base, servers.cachedBase] : [base, cachedBase];
  const first = await fetch(u0 + path);
  if (!first.ok) throw new Error(`${path}: ${first.status} ${await first.text()}`);
  const u = await measureUrl(u0 + path, { samples: Number(args.samples), concurrency: 4, seconds: Number(args.seconds) });
  const cpu = await cpuPerRequest(u0 + path);
  await fetch(c0 + path);
  const c = await measureUrl(c0 + path, { samples: Number(args.samples), concurrency: 4, seconds: Number(args.seconds) });
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
pools.stop();
await engines.stop();
process.exit(0);
