// scratch: time each part of the overview's read alone (CPU and wall), on a kept bench store
import { enginesIn } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { createSolPriceService } from "../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { analyticsOverview } from "../api/app-public/analytics-service";
const dir = process.argv[2]!;
const n = Number(process.argv[3] ?? 30);
const engines = await enginesIn(dir, 20);
const real = engines.ch;
const seen: { q: string; p: Record<string, unknown> }[] = [];
const ch = { ...real, query: ((q: string, p?: Record<string, unknown>) => (seen.push({ q, p: p ?? {} }), real.query(q, p))) as typeof real.query };
const log = createLogger("error");
const configs = simulatedConfigRegistry(fixtureSimConfigs(7));
const deps: any = { ch, sql: engines.sql, configs, price: createSolPriceService([fixedPriceSourceTestDouble(150)], log), publicBaseUrl: "x", board: null,
  treasury: { address: "TreasuryBench111111111111111111111111111111", platformTokenMint: null, split: { vault: 70, creator: 15, platformBurn: 15 }, tokenSupply: null } };
const time = async (f: () => Promise<unknown>) => {
  const walls: number[] = []; const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) { const t = performance.now(); await f(); walls.push(performance.now() - t); }
  const c = process.cpuUsage(c0);
  walls.sort((a, b) => a - b);
  return `wall p50 ${walls[Math.floor(n / 2)]!.toFixed(2)} cpu ${((c.user + c.system) / 1000 / n).toFixed(2)}`;
};
const ranges = (process.argv[4] ?? "24h,7d,30d,all").split(",");
for (const range of ranges) {
  await analyticsOverview(deps, range as any); // warms the kept sums
  seen.length = 0;
  console.log(`${range} overview: ${await time(() => analyticsOverview(deps, range as any))}`);
  const main = seen.find((s) => s.q.includes("UNION ALL"))!;
  const reads = [...new Set(seen.map((s) => s.q.slice(0, 60)))];
  console.log(`  reads per overview: ${seen.length / n} (${reads.length} distinct)`);
  console.log(`  whole read: ${await time(() => real.query(main.q, main.p))}`);
  const parts = main.q.split("\nUNION ALL\n");
  for (const part of parts) {
    const name = part.match(/SELECT '(\w+)'/)![1];
    console.log(`  ${name}: ${await time(() => real.query(part, main.p))}`);
  }
}
await engines.stop();
process.exit(0);
