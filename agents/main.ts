/**
 * The agents process (scaled mode): the agents' background work (agents/background.ts):
 * vault balances, coin metadata, and the launch tracker that turns confirmed launches
 * into agents. Health, readiness and metrics on PORT. Run one or more: each job
 * skips work another process holds (advisory lock) or that is not due yet.
 */
import { createLogger } from "../infra/log";
import { configOrExit, healthServer, onShutdown, openEngines, platformConfigs } from "../compose/boot";
import { createSolanaRpc } from "../infra/solana-rpc";
import { enginesReady, launchPlatform } from "../compose/wiring";
import { startAgentBackground } from "./background";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "agents" });
const { pg, ch } = await openEngines(config, log);
const rpc = config.rpcUrl ? createSolanaRpc(config.rpcUrl) : null;
const { configs, simConfigs } = await platformConfigs(config, log, rpc);
const launches = launchPlatform(config, { ch, sql: pg.sql }, configs, rpc, log);
const jobs = startAgentBackground({ config, sql: pg.sql, rpc, log, launches, simulated: simConfigs !== null });
const server = healthServer(
  config.port,
  () => enginesReady({ ch, sql: pg.sql }),
  () => `# TYPE acp_agents_jobs gauge\nacp_agents_jobs ${jobs.names.length}\n`,
  config.metrics.token,
);
log.info("agents background running", { jobs: jobs.names, port: server.server?.port });
onShutdown(log, () => [() => jobs.stop(), () => server.stop(), () => ch.close(), () => pg.stop()]);
