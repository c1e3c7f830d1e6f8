/**
 * The agents process (scaled mode, `agents/main.ts`): the agents' background work
 * (agents/background.ts): vault balances, coin metadata, and the launch tracker that turns
 * confirmed launches into agents, the SOL price history; the agent runtime (agents/runtime/: states and decision cycles) and the treasury actions' payment executor (agents/treasury/). Health, readiness and metrics on PORT. Run one or more:
 * each job skips work another process holds (advisory lock) or that is not due yet.
 */
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { startAgentBackground } from "../../agents/background";
import { contestJobDeps } from "../contests";
import { healthServer, openPlatform, processHandle } from "../boot";
import { enginesReady, launchPlatform, priceSources, startRuntime } from "../wiring";
import { createSolPriceService } from "../../infra/sol-price";
import { startPlatformTreasury, startTreasuryExecutor } from "../treasury";

export async function startAgents(given: Config, log: Logger) {
  const { pg, ch, engines, step, rpc, configs, simConfigs, config } = await openPlatform(given, log);
  const launches = launchPlatform(config, engines, configs, rpc, log);
  // the SOL price history: the same sources as the API (the simulated price when the simulator plays the chain)
  const sources = priceSources(config, rpc, { simulator: simConfigs !== null });
  const price = createSolPriceService(sources, log.child({ stage: "price" }));
  const priceHistory = { ch, price, simulated: sources.some((s) => s.simulated) };
  const contests = contestJobDeps(engines, configs, rpc, launches.firewall, log);
  const jobs = startAgentBackground({ config, sql: pg.sql, rpc, log, launches, simulated: simConfigs !== null, priceHistory, contests });
  const runtime = startRuntime(config, engines, configs, price, log, { simulated: simConfigs !== null });
  // treasury actions' payments (airdrops, prizes, buybacks, the fee distribution): with a chain only
  const treasury = await startPlatformTreasury(config, engines, configs, rpc, log);
  const executor = startTreasuryExecutor(config, engines, configs, rpc, log, { treasuryKey: treasury.treasuryKey });
  const server = await step(`listening on port ${config.port}`, () =>
    healthServer(config.port, () => enginesReady(engines), () => `# TYPE acp_agents_jobs gauge\nacp_agents_jobs ${jobs.names.length}\n`, config.metrics.token),
  );
  const port = server.server?.port;
  log.info("agents background running", { jobs: jobs.names, port });
  return processHandle(log, port, () => [() => jobs.stop(), () => runtime.stop(), () => treasury.stop(), () => executor?.stop(), () => server.stop(), () => ch.close(), () => pg.stop()]);
}
