/**
 * Generation throughput: `bun ingest/simulator/throughput.ts [transactions] [pools] [legacySwapEvent=1]`.
 * Generates in batches of 1000 (as runSimulator would) and reports tx/s and the mix.
 */
import { createSimulator, fixtureSimConfigs } from "./index";

const count = Number(process.argv[2] ?? 100_000);
const pools = Number(process.argv[3] ?? 200);
const legacySwapEvent = (process.argv[4] ?? "1") !== "0";
const sim = createSimulator({ seed: 42, configs: fixtureSimConfigs(42, { creatorTradingFeePercentage: 50 }), pools, legacySwapEvent });
const started = performance.now();
for (let done = 0; done < count; done += 1000) sim.next(Math.min(1000, count - done));
const seconds = (performance.now() - started) / 1000;
const c = sim.state().counts;
const trades = c.firstBuys + c.dbcBuys + c.dbcSells + c.dammBuys + c.dammSells;
console.log(
  JSON.stringify({ transactions: count, seconds: +seconds.toFixed(2), txPerSecond: Math.round(count / seconds), trades, legacySwapEvent, heapMB: Math.round(process.memoryUsage().heapUsed / 2 ** 20), counts: c }),
);
