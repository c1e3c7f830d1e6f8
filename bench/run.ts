/**
 * The benchmark: ingest throughput through the webhook against straight inserts,
 * freshness, and Data API latency/throughput at 1M and 10M trades over 10k agents.
 * Run: `npm run bench` (options: --txs 720000 --concurrency 64 --sizes 1000000,10000000 --seconds 3
 * --samples 1000 --kafka on --kafka-txs 60000 --backlog 200000).
 * Writes bench/results/latest.json and prints a Markdown table for the README.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freshEngines } from "../infra/testing/engines";
import { migrationFiles, statements } from "../infra/migrate";
import { createLogger } from "../infra/log";
import { loadConfig } from "../infra/config";
import { wirePlatform } from "../compose/wiring";
import { createSolPriceService } from "../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { createSimulator, fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { backgroundMergesSettled, benchMints, loadAgents, loadTrades, loadTreasury } from "./dataset";
import { kafkaBodies, kafkaPhase } from "./kafka";
import { statelessScope } from "../compose/processes/ingest";
import { testKafkaBrokers, stopTestKafka } from "../infra/testing/kafka";
import { toEnvelopes } from "../ingest/helius/handle";
import { measureUrl, peakRssMiB, percentile, resetPeakRss, round, settleRss } from "./measure";

const { values: args } = parseArgs({
  options: { kafka: { type: "string", default: "on" }, "kafka-txs": { type: "string", default: "60000" }, "direct-rows": { type: "string", default: "300000" }, backlog: { type: "string", default: "200000" }, samples: { type: "string", default: "1000" }, "board-ms": { type: "string", default: "5000" }, concurrency: { type: "string", default: "64" }, txs: { type: "string", default: "720000" }, sizes: { type: "string", default: "1000000,10000000" }, seconds: { type: "string", default: "3" } },
});
const TXS = Number(args.txs);
const KAFKA_TXS = Number(args["kafka-txs"]);
/** the straight-insert comparison reuses up to this many of the ingested trade rows (a rate needs no more) */
const DIRECT_ROWS = Number(args["direct-rows"]);
const BATCH = 100;
const SIZES = args.sizes!.split(",").map(Number);
const SECONDS = Number(args.seconds);
const CONCURRENCY = Number(args.concurrency);
const SAMPLES = Number(args.samples);
const AGENTS = 10_000;
const SECRET = "bench-webhook-secret-0123456789";
const out: Record<string, unknown> = { machine: { cores: navigator.hardwareConcurrency, bun: Bun.version }, at: new Date().toISOString() };
const say = (msg: string) => console.error(`[bench] ${msg}`);

// Engines in a fresh folder
const engines = await freshEngines("acp-bench", 20);
const { ch, sql } = engines;
const log = createLogger("warn");

const simConfigs = fixtureSimConfigs(7);
const configs = simulatedConfigRegistry(simConfigs);
// no per-client limit: every request comes from this one loopback client, and the point is throughput
const TREASURY = "TreasuryBench111111111111111111111111111111";
const platformToken = (await benchMints(ch, 2))[1]!; // one of the market's coins (bench/dataset.ts)
const config = loadConfig({ SIMULATOR: "off", PUBLIC_BASE_URL: "https://agents.example", DATA_API_RATE_PER_MINUTE: "0", TREASURY_ADDRESS: TREASURY, PLATFORM_TOKEN_MINT: platformToken });
const price = createSolPriceService([fixedPriceSourceTestDouble(150)], log); // loopback test double: no price feed here
const wire = (responseCache: boolean) =>
  wirePlatform({ config, log, engines: { ch, sql }, configs, webhookSecret: SECRET, price, responseCache, boardRefreshMs: Number(args["board-ms"]) });
const uncached = await wire(false);
const cached = await wire(true);
const uncachedServer = uncached.app.listen({ port: 0, hostname: "127.0.0.1" });
const cachedServer = cached.app.listen({ port: 0, hostname: "127.0.0.1" });
const base = `http://127.0.0.1:${uncachedServer.server!.port}`;
const cachedBase = `http://127.0.0.1:${cachedServer.server!.port}`;

const countTrades = async () => Number((await ch.query<{ n: string }>("SELECT count() AS n FROM trades"))[0]!.n);

// 1. Ingest through the webhook, sustained: the load generator is its own process (bench/webhook-load.ts)
await resetPeakRss();
const tradesBefore = await countTrades();
say(`posting ${TXS} simulated transactions in calls of 100, ${CONCURRENCY} at a time, from a separate process (it generates them first)`);
const load = Bun.spawn([process.execPath, "run", join(import.meta.dir, "webhook-load.ts"), "--url", `${base}/v1/ingest/helius`, "--secret", SECRET, "--txs", String(TXS), "--concurrency", String(CONCURRENCY)], {
  stdout: "pipe",
  stderr: "inherit",
});
// the rate per 10-second window shows warm-up and whether it holds; windows start with the first stored trade
const windows: number[] = [];
let windowTrades = tradesBefore;
let windowStart = 0;
const windowTimer = setInterval(async () => {
  const n = await countTrades();
  if (windowStart === 0) {
    if (n > tradesBefore) (windowStart = performance.now()), (windowTrades = n);
    return;
  }
  if (performance.now() - windowStart < 10_000) return;
  windows.push(Math.round(((n - windowTrades) * 1000) / (performance.now() - windowStart)));
  windowStart = performance.now();
  windowTrades = n;
}, 250);
const loadResult = JSON.parse((await new Response(load.stdout).text()).trim().split("\n").at(-1) ?? "{}") as { seconds: number; calls: number; callP50ms: number; callP99ms: number };
clearInterval(windowTimer);
if ((await load.exited) !== 0) throw new Error("the webhook load generator failed");
const ingestSeconds = loadResult.seconds;
const ingestPeakRss = await peakRssMiB();
say(`sink writes: ${uncached.metrics.batches} for ${loadResult.calls} webhook calls, ${round(uncached.metrics.writeMs / 1000)} s writing of ${round(ingestSeconds)} s; trades/s per 10 s window: ${windows.join(", ")}`);
const tradesIngested = (await countTrades()) - tradesBefore;

// Same rows straight into an identical schema (tables and views) in another database
say("inserting the same rows straight into ClickHouse");
const rows = await ch.query<Record<string, unknown>>(`SELECT * EXCEPT at, toUnixTimestamp(at) AS at FROM trades LIMIT ${DIRECT_ROWS}`);
await ch.command("CREATE DATABASE IF NOT EXISTS bench_direct");
await ch.command("USE bench_direct");
for (const f of migrationFiles("clickhouse")) for (const s of statements(f.text)) await ch.command(s);
await ch.command("USE default");
const perBatch = 10_000; // the engine's best case: large inserts
const t1 = performance.now();
for (let i = 0; i < rows.length; i += perBatch) await ch.insert("bench_direct.trades", rows.slice(i, i + perBatch));
const directSeconds = (performance.now() - t1) / 1000;
out.ingest = {
  transactions: TXS,
  trades: tradesIngested,
  webhookCalls: loadResult.calls,
  concurrency: CONCURRENCY,
  seconds: ingestSeconds,
  tradesPerSecondWebhook: Math.round(tradesIngested / ingestSeconds),
  tradesPerSecondPerWindow: windows,
  transactionsPerSecondWebhook: Math.round(TXS / ingestSeconds),
  tradesPerSecondDirectInsert: Math.round(rows.length / directSeconds),
  ratioWebhookToDirect: round(tradesIngested / ingestSeconds / (rows.length / directSeconds), 3),
  webhookCallP50ms: loadResult.callP50ms,
  webhookCallP99ms: loadResult.callP99ms,
  peakRssMiB: ingestPeakRss,
};
say(JSON.stringify(out.ingest));

// 1b. The same through Kafka (real broker from infra/kafka/up), and a backlog drain
if (args.kafka !== "off") {
  say("kafka phase");
  const { bodies: kafkaBodiesToPost, trades: kafkaTrades } = kafkaBodies(simConfigs, KAFKA_TXS);
  out.kafka = await kafkaPhase({
    brokers: await testKafkaBrokers(),
    ch,
    wire: ({ bus }) => wirePlatform({ config, log, engines: { ch, sql }, configs, webhookSecret: SECRET, price, responseCache: false, bus }),
    secret: SECRET,
    bodies: kafkaBodiesToPost,
    expectedTrades: kafkaTrades,
    concurrency: CONCURRENCY,
    backlog: { sim: createSimulator({ seed: 9, configs: simConfigs, startTime: Math.floor(Date.now() / 1000) - 86400, secondsPerTx: 0.2, pools: 300 }), transactions: Number(args.backlog) },
    say,
    postgresDir: engines.dir,
    // the backlog as the scaled ingest process publishes it (its stateless fact scope)
    decodeOptions: { scope: statelessScope(configs, { treasuryAddress: TREASURY, platformTokenMint: platformToken }) },
  });
  say(JSON.stringify(out.kafka));
}

// 2. Freshness: webhook 200 → visible in /trades (uncached); a few pools of its own, created by its first calls
say("freshness");
const sim = createSimulator({ seed: 10, configs: simConfigs, startTime: Math.floor(Date.now() / 1000) - 600, secondsPerTx: 1, pools: 5 });
const post = (body: string) =>
  fetch(`${base}/v1/ingest/helius`, { method: "POST", headers: { authorization: SECRET, "content-type": "application/json" }, body }).then(async (r) => {
    if (!r.ok) throw new Error(`webhook answered ${r.status}: ${await r.text()}`);
  });
const fresh: number[] = [];
for (let i = 0; i < 400 && fresh.length < 200; i++) {
  const [tx] = sim.next(1);
  const trade = toEnvelopes([tx], "simulator")[0]!.facts.find((f) => f.kind === "trade");
  await post(JSON.stringify([tx]));
  const t = performance.now();
  if (!trade || trade.kind !== "trade") continue;
  for (;;) {
    const res = await fetch(`${base}/v1/public/agents/${trade.mint}/trades?limit=5`);
    const body = (await res.json()) as { items?: { signature: string }[] };
    if (body.items?.some((x) => x.signature === trade.signature)) break;
  }
  fresh.push(performance.now() - t);
}
fresh.sort((a, b) => a - b);
out.freshness = { samples: fresh.length, p50ms: round(percentile(fresh, 50)), p99ms: round(percentile(fresh, 99)) };
say(JSON.stringify(out.freshness));

// The load generator's own data is not the service's memory: drop it before the serving phases.
rows.length = 0;
Bun.gc(true);

// 3. Data API at each size
const launch = configs.launch!;
const mints = await loadAgents(ch, sql, launch, AGENTS);
await loadTreasury(ch, { agents: AGENTS, days: 30, treasury: TREASURY, platformToken, claimsPerCoin: 6 });
const hot = mints[0]!;
const endpoints: [string, string][] = [
  ["agents sort=new", "/v1/public/agents"],
  ["agents sort=marketcap", "/v1/public/agents?sort=marketcap"],
  ["agents sort=trending", "/v1/public/agents?sort=trending"],
  ["agents sort=volume", "/v1/public/agents?sort=volume"],
  ["agents q=", "/v1/public/agents?q=coin%2042"],
  ["agent detail", `/v1/public/agents/${hot}`],
  ["trades", `/v1/public/agents/${hot}/trades`],
  ["agent activity", `/v1/public/agents/${hot}/activity?kinds=launch,trade`],
  ["activity", "/v1/public/activity"],
  ["stats", "/v1/public/stats"],
  ["price/sol", "/v1/public/price/sol"],
  ["configs", "/v1/public/configs"],
  // the Application API's public reads
  ["tokens sort=new", "/v1/tokens"],
  ["tokens sort=trending", "/v1/tokens?sort=trending"],
  ["token detail", `/v1/tokens/${hot}`],
  ["token trades", `/v1/tokens/${hot}/trades`],
  ["candles 1m", `/v1/tokens/${hot}/candles?interval=1m`],
  ["candles 1d", `/v1/tokens/${hot}/candles?interval=1d`],
  ["feed", "/v1/feed"],
  ["daemon feed", `/v1/daemons/${hot}/feed`],
  // platform totals, analytics and tokenomics (issue 11)
  ["platform stats", "/v1/platform/stats"],
  ["analytics 24h", "/v1/analytics/overview?range=24h"],
  ["analytics all", "/v1/analytics/overview?range=all"],
  ["tokenomics", "/v1/tokenomics"],
  ["feed payouts", "/v1/feed?kinds=creator_payout,platform_buyback"],
  ["daemon feed payouts", `/v1/daemons/${hot}/feed?kinds=creator_payout`],
];
const api: Record<string, unknown> = {};
let loaded = 0;
for (const size of SIZES) {
  say(`loading trades up to ${size}`);
  const t = performance.now();
  await loadTrades(ch, { offset: loaded, count: size - loaded, total: SIZES.at(-1)!, agents: AGENTS, days: 30, config: launch.address });
  say(`loaded ${size - loaded} trades in ${round((performance.now() - t) / 1000, 1)} s`);
  loaded = size;
  Bun.gc(true);
  // the bulk load is the benchmark's own doing: let chDB hand its memory back before measuring serving
  const merging = await backgroundMergesSettled(ch);
  say(`background merges of the load done after ${merging} s`);
  ((out.mergeWaitSeconds ??= {}) as Record<string, number>)[String(size)] = merging;
  const settled = await settleRss();
  say(`RSS settled at ${settled} MiB after the load`);
  ((out.settledRssMiB ??= {}) as Record<string, number>)[String(size)] = settled;
  await resetPeakRss();
  const results: Record<string, unknown> = {};
  for (const [name, path] of endpoints) {
    const u = await measureUrl(base + path, { samples: SAMPLES, concurrency: 4, seconds: SECONDS });
    await fetch(cachedBase + path); // warm: cached figures measure cache hits
    const c = await measureUrl(cachedBase + path, { samples: SAMPLES, concurrency: 4, seconds: SECONDS });
    results[name] = { uncached: u, cached: c };
    say(`${size} ${name}: uncached p50 ${u.p50} p99 ${u.p99} ms ${u.rps} rps; cached p50 ${c.p50} p99 ${c.p99} ms ${c.rps} rps${u.errors + c.errors ? ` ERRORS ${u.errors + c.errors}` : ""}`);
  }
  api[String(size)] = results;
  (out.servingPeakRssMiB as Record<string, number> | undefined) ?? (out.servingPeakRssMiB = {});
  (out.servingPeakRssMiB as Record<string, number>)[String(size)] = await peakRssMiB();
}
out.api = api;
out.peakRssMiBLastPhase = await peakRssMiB();

mkdirSync(join(import.meta.dir, "results"), { recursive: true });
writeFileSync(join(import.meta.dir, "results", "latest.json"), JSON.stringify(out, null, 2));
console.log(markdown(out));
uncachedServer.stop();
cachedServer.stop();
stopTestKafka();
await engines.stop();
process.exit(0);

function markdown(o: any): string {
  const lines = [
    `Ingest: ${o.ingest.tradesPerSecondWebhook} trades/s through the webhook, sustained over ${o.ingest.seconds} s (${o.ingest.transactionsPerSecondWebhook} tx/s, ${o.ingest.trades} trades in ${o.ingest.webhookCalls} calls of 100 tx, ${o.ingest.concurrency} at a time; per 10 s window: ${o.ingest.tradesPerSecondPerWindow.join(", ")}); straight inserts of the same rows: ${o.ingest.tradesPerSecondDirectInsert} trades/s; ratio ${o.ingest.ratioWebhookToDirect}. Webhook call p50 ${o.ingest.webhookCallP50ms} ms, p99 ${o.ingest.webhookCallP99ms} ms.`,
    ...(o.kafka
      ? [
          `Through Kafka in the same run: the webhook accepted ${o.kafka.webhookAcceptedTradesPerSecond} trades/s (acknowledged by Kafka); end to end into ClickHouse ${o.kafka.endToEndTradesPerSecond} trades/s (in-process bus: ${o.ingest.tradesPerSecondWebhook}). A backlog of ${o.kafka.backlogTransactions.toLocaleString("en")} transactions (${o.kafka.backlogTrades.toLocaleString("en")} trades) drained in ${o.kafka.drainSeconds} s (${o.kafka.drainTradesPerSecond} trades/s).`,
        ]
      : []),
    `Freshness (webhook 200 → visible in /trades): p50 ${o.freshness.p50ms} ms, p99 ${o.freshness.p99ms} ms (${o.freshness.samples} samples).`,
    `Peak RSS of the service process (server and chDB; the webhook load generator runs in its own process): ingest phase ${o.ingest.peakRssMiB} MiB; serving ${Object.entries(o.servingPeakRssMiB).map(([k, v]) => `${Number(k).toLocaleString("en")} trades ${v} MiB`).join(", ")} (at rest after each load: ${Object.entries(o.settledRssMiB ?? {}).map(([k, v]) => `${Number(k).toLocaleString("en")} trades ${v} MiB`).join(", ")}).`,
    "",
    "| endpoint | trades | uncached p50 / p99 ms | uncached req/s | cached p50 / p99 ms | cached req/s |",
    "|---|---|---|---|---|---|",
  ];
  for (const [size, results] of Object.entries(o.api as Record<string, any>))
    for (const [name, r] of Object.entries(results as Record<string, any>))
      lines.push(`| ${name} | ${Number(size).toLocaleString("en")} | ${r.uncached.p50} / ${r.uncached.p99} | ${r.uncached.rps} | ${r.cached.p50} / ${r.cached.p99} | ${r.cached.rps} |`);
  return lines.join("\n");
}
