/**
 * The agents process (scaled mode): the agents' background work (agents/background.ts):
 * vault balances, coin metadata, and the launch tracker that turns confirmed launches
 * into agents. Health, readiness and metrics on PORT. Run one or more: each job
 * skips work another process holds (advisory lock) or that is not due yet.
 * Built by compose/processes/agents.ts.
 */
import { createLogger } from "../infra/log";
import { configOrExit, stopOnSignal } from "../compose/boot";
import { startAgents } from "../compose/processes/agents";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "agents" });
await stopOnSignal(log, startAgents(config, log));
