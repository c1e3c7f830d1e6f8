/**
 * Trade export throughput: rows/s of GET /v1/public/exports/trades (every coin, over
 * loopback HTTP, read by curl in its own process) against the engine's own FORMAT
 * output of the same query (the same SELECT streamed from the engine in the same
 * process, no HTTP), and the service process's RSS growth while each runs (sampled
 * every 50 ms; with chDB the engine's memory is the service's). Each side runs `--repeat`
 * times, alternating; the fastest run counts, and the largest RSS growth.
 *
 * Run: `bun run bench/export.ts --sizes 1000000,10000000 --formats csv,ndjson,parquet --repeat 3`
 * (TMPDIR=<dir> to put the data elsewhere). Prints one line per size and format and a
 * Markdown table for bench/README.md.
 */
import { parseArgs } from "node:util";
import { loadavg } from "node:os";
import { Elysia } from "elysia";
import { freshEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { errorHandler } from "../api/errors";
import { exportRoutes } from "../api/exports";
import { exportQuery } from "../api/exports/sql";
import { ENGINE_FORMAT, EXPORT_SETTINGS, highestStoredSlot, stockQuotes } from "../api/exports/service";
import { backgroundMergesSettled, loadAgents, loadTrades } from "./dataset";
import { round } from "./measure";

const { values } = parseArgs({
  options: { repeat: { type: "string", default: "3" }, sizes: { type: "string", default: "1000000" }, formats: { type: "string", default: "csv,ndjson,parquet" }, agents: { type: "string", default: "10000" } },
});
const sizes = values.sizes!.split(",").map(Number);
const formats = values.formats!.split(",") as ("csv" | "ndjson" | "parquet")[];
const agents = Number(values.agents);
// the machine is shared: each side runs `repeat` times, alternating, and the best run of each counts
const repeat = Number(values.repeat);

const e = await freshEngines("export-bench", 5);
const configs = simulatedConfigRegistry(fixtureSimConfigs(7));
const log = createLogger("warn");
const app = new Elysia()
  .use(errorHandler(log))
  .use(exportRoutes({ ch: e.ch, sql: e.sql, configs, exportsPerClient: 4, log }))
  .listen({ port: 0, hostname: "127.0.0.1" });
const port = app.server!.port;

/** Runs `work`, sampling RSS; returns seconds, bytes and the RSS growth over the level before it began (MiB). */
async function measured(work: () => Promise<number>) {
  Bun.gc(true);
  const before = process.memoryUsage().rss;
  let peak = before;
  const iv = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const t = performance.now();
  const bytes = await work();
  const seconds = (performance.now() - t) / 1000;
  clearInterval(iv);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { seconds, bytes, rssGrowthMiB: (peak - before) / 2 ** 20 };
}

const table: string[] = [
  "| trades | format | export rows/s | engine rows/s | ratio | export RSS growth | engine RSS growth | bytes | load average |",
  "|---|---|---|---|---|---|---|---|---|",
];
/** the 1-minute load average: the machine may be shared, and wall-clock figures say little without it */
const load = () => loadavg()[0]!.toFixed(1);
let loaded = 0;
await loadAgents(e.ch, e.sql, configs.launch!, agents);
for (const size of sizes) {
  await loadTrades(e.ch, { offset: loaded, count: size - loaded, total: size, agents, days: 30, config: configs.launch!.address });
  loaded = size;
  console.error(`loaded ${size} trades; merges settled after ${await backgroundMergesSettled(e.ch)} s`);
  const until = await highestStoredSlot(e.ch);
  for (const format of formats) {
    const { sql, params } = exportQuery({ mint: null, hidden: [], fromSlot: 0n, untilSlot: until, fromMs: null, toMs: null }, stockQuotes(configs));
    const engineRun = () =>
      measured(async () => {
        let n = 0;
        for await (const b of e.ch.stream(sql, params, ENGINE_FORMAT[format], { settings: EXPORT_SETTINGS[format] })) {
          n += b.length;
          e.ch.freeChunk?.(b); // as the export does once a chunk is sent: the engine's side at its best too
        }
        return n;
      });
    const exportRun = () =>
      measured(async () => {
        // the client is curl in its own process, as a researcher's would be: the service's figures are the service's alone
        const curl = Bun.spawn(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", `http://127.0.0.1:${port}/v1/public/exports/trades?to=${until}&format=${format}`], { stdout: "pipe" });
        const [status, bytes] = (await new Response(curl.stdout).text()).split(" ");
        await curl.exited;
        if (status !== "200") throw new Error(`export answered ${status}`);
        return Number(bytes);
      });
    const runs = { engine: [] as Awaited<ReturnType<typeof engineRun>>[], export: [] as Awaited<ReturnType<typeof engineRun>>[] };
    const loadBefore = load();
    for (let i = 0; i < repeat; i++) {
      runs.engine.push(await engineRun());
      runs.export.push(await exportRun());
    }
    const best = (r: typeof runs.engine) => ({ ...r.reduce((a, b) => (b.seconds < a.seconds ? b : a)), rssGrowthMiB: Math.max(...r.map((x) => x.rssGrowthMiB)) });
    const [engine, exported] = [best(runs.engine), best(runs.export)];
    const [eng, exp] = [size / engine.seconds, size / exported.seconds];
    const loads = `${loadBefore}–${load()}`;
    console.error(`${size} ${format} (load ${loads}): export ${round(exp, 0)} rows/s (${round(exported.seconds)} s, ${round(exported.bytes / 2 ** 20 / exported.seconds)} MB/s), engine ${round(eng, 0)} rows/s (${round(engine.seconds)} s); RSS growth export ${round(exported.rssGrowthMiB, 1)} MiB, engine ${round(engine.rssGrowthMiB, 1)} MiB`);
    table.push(`| ${size.toLocaleString("en")} | ${format} | ${round(exp, 0).toLocaleString("en")} | ${round(eng, 0).toLocaleString("en")} | ${round(exp / eng)} | ${round(exported.rssGrowthMiB, 1)} MiB | ${round(engine.rssGrowthMiB, 1)} MiB | ${round(exported.bytes / 2 ** 20, 1)} MiB | ${loads} |`);
  }
}
console.log(table.join("\n"));
await app.stop(true);
await e.stop();
process.exit(0);
