import { enginesIn } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { createSolPriceService } from "../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { analyticsOverview } from "../api/app-public/analytics-service";
const engines = await enginesIn(process.argv[2]!, 20);
const log = createLogger("error");
const deps: any = { ch: engines.ch, sql: engines.sql, configs: simulatedConfigRegistry(fixtureSimConfigs(7)), price: createSolPriceService([fixedPriceSourceTestDouble(150)], log), publicBaseUrl: "x", board: null,
  treasury: { address: "TreasuryBench111111111111111111111111111111", platformTokenMint: null, split: { vault: 70, creator: 15, platformBurn: 15 }, tokenSupply: null } };
await analyticsOverview(deps, "30d");
const c0 = process.cpuUsage();
for (let i = 0; i < 200; i++) await analyticsOverview(deps, "30d");
const c = process.cpuUsage(c0);
console.log("cpu/overview", ((c.user + c.system) / 1000 / 200).toFixed(2));
await engines.stop(); process.exit(0);
