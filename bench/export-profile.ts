/**
 * Where a trade export spends its CPU and memory: the engine's own stream of the export's
 * query read in-process, then the same rows through GET /v1/public/exports/trades to curl
 * in its own process. For each: wall time, rows/s, the chunks (count, mean size), the
 * RSS growth, and CPU ms per MiB per thread name of this process (bench/thread-cpu.ts:
 * "ThreadPool" is the engine's pipeline, "Bun Pool" the thread chdb's fetches run on, where
 * a block becomes CSV/JSON/Parquet bytes, "bun" the main thread) and of curl.
 * `--verify` also checks the export's bytes are the engine's (SHA-256; CSV with its header).
 *
 * The trades stay in `--dir` between runs (loaded once, bench/dataset.ts); only chDB runs:
 * the export's Postgres read (the hidden coins) answers none.
 *
 * Run: `bun run bench/export-profile.ts --trades 1000000 --formats csv,ndjson,parquet --dir /work/bench-data/export-profile`
 */
import { parseArgs } from "node:util";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { createChdb } from "../infra/clickhouse/chdb";
import { migrateClickhouse } from "../infra/migrate";
import { createLogger } from "../infra/log";
import type { Sql } from "../infra/postgres";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { errorHandler } from "../api/errors";
import { exportRoutes } from "../api/exports";
import { exportQuery } from "../api/exports/sql";
import { CSV_HEADER, ENGINE_FORMAT, EXPORT_SETTINGS, stockQuotes } from "../api/exports/service";
import { backgroundMergesSettled, loadTrades } from "./dataset";
import { round } from "./measure";
import { threadCpu, threadCpuSince } from "./thread-cpu";

const { values } = parseArgs({
  options: {
    trades: { type: "string", default: "1000000" },
    formats: { type: "string", default: "csv,ndjson,parquet" },
    dir: { type: "string", default: join(tmpdir(), "export-profile") },
    repeat: { type: "string", default: "1" },
    verify: { type: "boolean", default: false },
  },
});
const trades = Number(values.trades);
const formats = values.formats!.split(",") as ("csv" | "ndjson" | "parquet")[];
const log = createLogger("warn");
const ch = await createChdb(values.dir!);
await migrateClickhouse(ch, log);
const configs = simulatedConfigRegistry(fixtureSimConfigs(7));
const stored = Number((await ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades_by_slot"))[0]!.n);
if (stored < trades) {
  await loadTrades(ch, { offset: stored, count: trades - stored, total: trades, agents: 10000, days: 30, config: configs.launch!.address });
  console.error(`loaded to ${trades} trades; merges settled after ${await backgroundMergesSettled(ch)} s`);
}
const noHiddenCoins = (() => Promise.resolve([])) as unknown as Sql;
const app = new Elysia()
  .use(errorHandler(log))
  .use(exportRoutes({ ch, sql: noHiddenCoins, configs, exportsPerClient: 4, log }))
  .listen({ port: 0, hostname: "127.0.0.1" });
// the range's last slot: the first `trades` trades of the directory, whatever more it holds
const [last] = await ch.query<{ s: string }>("SELECT toString(slot) AS s FROM trades_by_slot ORDER BY slot LIMIT 1 OFFSET {n:UInt64}", { n: trades - 1 });
const until = BigInt(last!.s);

type Run = { bytes: number; chunks?: number; clientMs?: number; sha?: string };

async function profiled(label: string, work: () => Promise<Run>): Promise<Run> {
  Bun.gc(true);
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const load = loadavg()[0]!.toFixed(1);
  const cpu = threadCpu();
  const t = performance.now();
  const r = await work();
  const s = (performance.now() - t) / 1000;
  clearInterval(sampler);
  const threads = threadCpuSince(cpu);
  const mib = r.bytes / 2 ** 20;
  const total = threads.reduce((a, [, ms]) => a + ms, 0);
  const chunks = r.chunks ? `, ${r.chunks} chunks of ${round(r.bytes / r.chunks / 1024, 0)} KiB` : "";
  console.log(`${label}: ${round(s)} s, ${round(trades / s, 0)} rows/s, ${round(mib / s)} MiB/s${chunks}, RSS +${round((peak - before) / 2 ** 20, 1)} MiB, load ${load}`);
  const client = r.clientMs === undefined ? "" : `; curl ${round(r.clientMs / mib, 2)} ms/MiB`;
  console.log(`  service CPU ${round(total / mib, 2)} ms/MiB: ${threads.slice(0, 6).map(([n, ms]) => `${n.trim()} ${round(ms / mib, 2)}`).join(", ")}${client}`);
  return r;
}

for (const format of formats) {
  const { sql, params } = exportQuery({ mint: null, hidden: [], fromSlot: 0n, untilSlot: until, fromMs: null, toMs: null }, stockQuotes(configs));
  for (let i = 0; i < Number(values.repeat); i++) {
    const engine = await profiled(`${format} engine`, async () => {
      let bytes = 0, chunks = 0;
      const sha = values.verify ? new Bun.CryptoHasher("sha256") : null;
      if (sha && format === "csv") sha.update(CSV_HEADER);
      for await (const b of ch.stream(sql, params, ENGINE_FORMAT[format], { settings: EXPORT_SETTINGS[format] })) {
        bytes += b.length;
        chunks++;
        sha?.update(b);
        ch.freeChunk?.(b);
      }
      return { bytes, chunks, sha: sha?.digest("hex") };
    });
    const exported = await profiled(`${format} export`, async () => {
      const url = `http://127.0.0.1:${app.server!.port}/v1/public/exports/trades?to=${until}&format=${format}`;
      const curl = values.verify
        ? Bun.spawn(["bash", "-c", `curl -sS -f '${url}' | tee >(wc -c >&2) | sha256sum`], { stdout: "pipe", stderr: "pipe" })
        : Bun.spawn(["curl", "-sS", "-f", "-o", "/dev/null", "-w", "%{size_download}", url], { stdout: "pipe" });
      const [out, err] = await Promise.all([new Response(curl.stdout).text(), curl.stderr ? new Response(curl.stderr as ReadableStream).text() : ""]);
      if ((await curl.exited) !== 0) throw new Error(`export failed: ${err}`);
      const usage = curl.resourceUsage();
      const clientMs = values.verify ? undefined : usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : undefined;
      return values.verify ? { bytes: Number(err.trim()), sha: out.split(" ")[0] } : { bytes: Number(out), clientMs };
    });
    if (values.verify) console.log(`  bytes ${exported.sha === engine.sha ? "equal" : "DIFFER"} (sha256 ${exported.sha})`);
  }
}
await app.stop(true);
process.exit(0);
