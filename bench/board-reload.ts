/**
 * How long a market board reload takes (10k coins) and how long it holds the event loop
 * at a time (what a list request arriving during a reload waits for).
 * Run: `bun run bench/board-reload.ts`.
 */
import { freshEngines } from "../infra/testing/engines";
import { loadAgents, loadTrades } from "./dataset";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { readMarketRows } from "../api/public/market-sql";
const e = await freshEngines("board", 5);
const configs = simulatedConfigRegistry(fixtureSimConfigs(7));
await loadAgents(e.ch, e.sql, configs.launch!, 10000);
await loadTrades(e.ch, { offset: 0, count: 1_000_000, total: 1_000_000, agents: 10000, days: 30, config: configs.launch!.address });
const dayAgo = { current: null };
for (let i = 0; i < 6; i++) {
  const t = performance.now();
  let maxGap = 0, last = performance.now();
  const iv = setInterval(() => { const n = performance.now(); maxGap = Math.max(maxGap, n - last); last = n; }, 1);
  const rows = await readMarketRows(e.ch, null, Math.floor(Date.now() / 1000), dayAgo as never);
  clearInterval(iv);
  console.log("reload", rows.length, "rows", (performance.now() - t).toFixed(1), "ms; longest event-loop block", maxGap.toFixed(1), "ms");
}
await e.stop();
process.exit(0);
