import { enginesIn } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { createSolPriceService } from "../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { analyticsOverview } from "../api/app-public/analytics-service";
const engines = await enginesIn(process.argv[2]!, 20);
const real = engines.ch;
let last: any;
const ch = { ...real, query: (async (q: string, p?: Record<string, unknown>) => { const r = await real.query(q, p); if (q.includes("UNION ALL")) last = { r, p }; return r; }) as typeof real.query };
const log = createLogger("error");
const deps: any = { ch, sql: engines.sql, configs: simulatedConfigRegistry(fixtureSimConfigs(7)), price: createSolPriceService([fixedPriceSourceTestDouble(150)], log), publicBaseUrl: "x", board: null,
  treasury: { address: "TreasuryBench111111111111111111111111111111", platformTokenMint: null, split: { vault: 70, creator: 15, platformBurn: 15 }, tokenSupply: null } };
for (const range of ["24h", "30d"]) {
  await analyticsOverview(deps, range as any);
  const n = 20; const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await analyticsOverview(deps, range as any);
  const c = process.cpuUsage(c0);
  console.log(range, "overview cpu", ((c.user + c.system) / 1000 / n).toFixed(2), "gain", last.p.gain, "cands", last.p.candidates.length);
  for (const row of last.r) console.log("  ", row.part, row.value.length);
  const c1 = process.cpuUsage(); for (let i = 0; i < n; i++) await real.query("SELECT 1"); const c2 = process.cpuUsage(c1); console.log("  SELECT 1 cpu", ((c2.user + c2.system) / 1000 / n).toFixed(2));
}
await engines.stop(); process.exit(0);
