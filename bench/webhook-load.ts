/**
 * The webhook load generator of the benchmark, run as its own process so that its
 * bodies (about 3 KB per transaction, generated before the clock starts) and its
 * HTTP client do not count in the service's memory. Posts `--txs` simulated
 * transactions in calls of 100, `--concurrency` at a time, and prints one JSON line:
 * { seconds, calls, callP50ms, callP99ms }.
 * Run by bench/run.ts: `bun run bench/webhook-load.ts --url ... --secret ... --txs 720000`.
 */
import { parseArgs } from "node:util";
import { createSimulator, fixtureSimConfigs } from "../ingest/simulator";
import { percentile, round } from "./measure";

const { values: args } = parseArgs({
  options: { url: { type: "string" }, secret: { type: "string" }, txs: { type: "string", default: "720000" }, concurrency: { type: "string", default: "64" }, seed: { type: "string", default: "7" } },
});
const TXS = Number(args.txs);
const BATCH = 100;
const seed = Number(args.seed);
// the platform configs are the benchmark's (bench/run.ts wires fixtureSimConfigs(7))
const sim = createSimulator({ seed, configs: fixtureSimConfigs(7), startTime: Math.floor(Date.now() / 1000) - TXS, secondsPerTx: 1, pools: 200 });
const bodies: string[] = [];
for (let i = 0; i < TXS; i += BATCH) bodies.push(JSON.stringify(sim.next(Math.min(BATCH, TXS - i))));
Bun.gc(true);

const latencies: number[] = [];
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: Number(args.concurrency) }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const t = performance.now();
      const res = await fetch(args.url!, { method: "POST", headers: { authorization: args.secret!, "content-type": "application/json" }, body });
      if (!res.ok) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
console.log(JSON.stringify({ seconds: round(seconds, 3), calls: bodies.length, callP50ms: round(percentile(latencies, 50)), callP99ms: round(percentile(latencies, 99)) }));
