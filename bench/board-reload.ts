/**
 * How long a market board reload takes (10k coins) and how long it holds the event loop
 * at a time (what a list request arriving during a reload waits for), with the process's
 * CPU time per reload (chDB's threads included). Reloads alternate between none written since
 * the last one and `--writes` new trades (spread over the coins as the load is) written since.
 * Run: `bun run bench/board-reload.ts [--trades 1000000] [--writes 200] [--reloads 12]`.
 */
import { parseArgs } from "node:util";
import { freshEngines } from "../infra/testing/engines";
import { loadAgents, loadTrades } from "./dataset";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { readMarketRows } from "../api/public/market-sql";
const { values: args } = parseArgs({ options: { trades: { type: "string", default: "1000000" }, writes: { type: "string", default: "200" }, reloads: { type: "string", default: "12" } } });
const e = await freshEngines("board", 5);
const configs = simulatedConfigRegistry(fixtureSimConfigs(7));
const total = Number(args.trades);
await loadAgents(e.ch, e.sql, configs.launch!, 10000);
await loadTrades(e.ch, { offset: 0, count: total, total, agents: 10000, days: 30, config: configs.launch!.address });
// what a board keeps between its loads (createMarketBoard)
const cache = { current: null };
let written = total;
const times: Record<string, { ms: number[]; cpu: number[] }> = { none: { ms: [], cpu: [] }, writes: { ms: [], cpu: [] } };
for (let i = 0; i < Number(args.reloads); i++) {
  const kind = i % 2 === 1 ? "writes" : "none";
  if (kind === "writes") {
    const n = Number(args.writes);
    await loadTrades(e.ch, { offset: written, count: n, total: written + n, agents: 10000, days: 30, config: configs.launch!.address });
    written += n;
  }
  const t = performance.now();
  const c0 = process.cpuUsage();
  let maxGap = 0, last = performance.now();
  const iv = setInterval(() => { const n = performance.now(); maxGap = Math.max(maxGap, n - last); last = n; }, 1);
  const rows = await readMarketRows(e.ch, null, Math.floor(Date.now() / 1000), cache as never);
  clearInterval(iv);
  const c = process.cpuUsage(c0);
  const ms = performance.now() - t;
  const cpu = (c.user + c.system) / 1000;
  if (i > 0) times[kind]!.ms.push(ms), times[kind]!.cpu.push(cpu);
  console.log(`reload ${i} (${kind === "writes" ? `${args.writes} trades written since` : "nothing written since"}): ${rows.length} rows ${ms.toFixed(1)} ms, ${cpu.toFixed(1)} ms CPU; longest event-loop block ${maxGap.toFixed(1)} ms`);
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(1);
for (const [k, v] of Object.entries(times)) console.log(`median, ${k}: ${med(v.ms)} ms, ${med(v.cpu)} ms CPU`);
await e.stop();
process.exit(0);
