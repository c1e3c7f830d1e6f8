/**
 * The agent runtime of a process (the `agents` process and the all-in-one `npm start`):
 * the state job (every 10 s: states.ts through state-job.ts) and the cycle scheduler
 * (scheduler.ts). The provider is the configured OpenAI-compatible API, else in demo
 * mode the built-in demo provider, else none: then it says so and agents stay asleep.
 */
import type { Config } from "../../infra/config";
import type { Sql } from "../../infra/postgres";
import type { ClickHouse } from "../../infra/clickhouse";
import type { Logger } from "../../infra/log";
import type { Firewall } from "../../api/firewall/firewall";
import { demoProvider } from "./demo-provider";
import { batchedActivityWriter } from "./activity-writer";
import { fundSimulatedVaults } from "./demo-vaults";
import { openAiProvider, type ModelProvider } from "./provider";
import { refreshAgentStates } from "./state-job";
import { startScheduler, type Scheduler } from "./scheduler";
import type { MarketReader } from "./cycle";

export type RuntimeOptions = {
  config: Config;
  sql: Sql;
  ch: ClickHouse;
  log: Logger;
  firewall: Firewall;
  market: MarketReader;
  solUsd: () => Promise<number | null>;
  /** demo mode: the simulator plays the chain */
  simulated: boolean;
  onAgentsChanged?: (mints: string[]) => Promise<void>;
  /** tests: another provider (the loopback double goes through openAiProvider with its URL) */
  provider?: ModelProvider | null;
  stateEveryMs?: number;
};

export function chooseProvider(config: Config, simulated: boolean): ModelProvider | null {
  if (config.runtime.provider) return openAiProvider(config.runtime.provider);
  return simulated ? demoProvider() : null;
}

export type AgentRuntime = { provider: string | null; scheduler: Scheduler | null; stop(): Promise<void> };

export function startAgentRuntime(o: RuntimeOptions): AgentRuntime {
  const log = o.log.child({ stage: "runtime" });
  const provider = o.provider !== undefined ? o.provider : chooseProvider(o.config, o.simulated);
  if (!provider) log.warn("no model provider configured (MODEL_PROVIDER_URL): agents stay asleep until one is");
  // the provider's host only: its URL may carry credentials
  else log.info("agent runtime running", { provider: provider.name, host: o.config.runtime.provider ? new URL(o.config.runtime.provider.url).host : null, cycleSeconds: o.config.runtime.cycleSeconds, concurrency: o.config.runtime.concurrency });

  const stateDeps = { sql: o.sql, solUsd: o.solUsd, provider: provider !== null, onAgentsChanged: o.onAgentsChanged };
  let stateRun: Promise<unknown> = Promise.resolve();
  const states = () =>
    (stateRun = (async () => {
      if (o.simulated) await fundSimulatedVaults(o.sql);
      const moves = await refreshAgentStates(stateDeps);
      if (moves.length) log.debug("agent states moved", { moves: moves.length });
    })().catch((err) => log.warn("agent states failed", { err: (err as Error).message })));
  void states();
  const timer = setInterval(() => void stateRun.then(states), o.stateEveryMs ?? 10_000);

  const timeoutMs = o.config.runtime.cycleTimeoutMs;
  const scheduler = provider
    ? startScheduler({
        sql: o.sql,
        log,
        cadenceMs: o.config.runtime.cycleSeconds * 1000,
        timeoutMs,
        concurrency: o.config.runtime.concurrency,
        cycle: {
          sql: o.sql, activity: batchedActivityWriter(o.ch), provider, models: o.config.models, firewall: o.firewall, market: o.market,
          // three tries of the model call within the cycle's time
          retry: { retries: 2, minDelayMs: 500, maxDelayMs: 5000 },
          callTimeoutMs: Math.max(1000, Math.floor(timeoutMs / 3)),
        },
      })
    : null;
  return {
    provider: provider?.name ?? null,
    scheduler,
    async stop() {
      clearInterval(timer);
      await stateRun;
      await scheduler?.stop();
    },
  };
}
