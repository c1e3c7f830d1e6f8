/**
 * The all-in-one process's simulator: it plays the simulated platform through the real
 * webhook at SIMULATOR_TX_PER_SECOND, and continues the same chain after a restart (the
 * count posted so far is kept in DATA_DIR/simulator.json).
 */
import { join } from "node:path";
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { retry } from "../../infra/retry";
import { createSimulator, runSimulator, type SimConfig } from "../../ingest/simulator";
import { readProgress, writeProgress } from "../../ingest/simulator/progress";

/** Starts posting to `webhookUrl` with `webhookSecret`; `stop` aborts and resolves once the run ended. */
export function startSimulatorPosting(o: { config: Config; simConfigs: SimConfig[]; webhookUrl: string; webhookSecret: string; log: Logger }) {
  const { config, log } = o;
  const stopSimulator = new AbortController();
  const secondsPerTx = 1 / config.simulator.txPerSecond; // chain time follows the wall clock
  const progressFile = join(config.dataDir, "simulator.json");
  const resumed = readProgress(progressFile, config.simulator.seed);
  const simulator = createSimulator({
    seed: config.simulator.seed,
    configs: o.simConfigs,
    startTime: Math.floor(Date.now() / 1000 - resumed * secondsPerTx),
    secondsPerTx,
  });
  // Continue the same chain after a restart: skip what an earlier run already posted.
  for (let skipped = 0; skipped < resumed; skipped += 10_000) simulator.next(Math.min(10_000, resumed - skipped));
  if (resumed) log.info("simulator resumed", { skipped: resumed });
  let posted = resumed;
  const run = runSimulator({
    simulator,
    txPerSecond: config.simulator.txPerSecond,
    batchSize: Math.max(1, Math.min(100, Math.ceil(config.simulator.txPerSecond / 4))),
    signal: stopSimulator.signal,
    post: async (body) => {
      // a refused batch (503 while storage catches up) is sent again until it is taken, so the simulated chain stays whole
      await retry(
        async () => {
          const res = await fetch(o.webhookUrl, { method: "POST", headers: { authorization: o.webhookSecret, "content-type": "application/json" }, body: JSON.stringify(body) });
          if (!res.ok) throw new Error(`the webhook answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        },
        {
          retries: Infinity,
          minDelayMs: 250,
          maxDelayMs: 5000,
          signal: stopSimulator.signal,
          onRetry: (err, attempt) => {
            if (!stopSimulator.signal.aborted) log.warn("simulator post refused; retrying", { attempt, err: (err as Error).message });
          },
        },
      );
      posted += body.length;
      writeProgress(progressFile, config.simulator.seed, posted);
    },
  }).catch((err) => {
    if (!stopSimulator.signal.aborted) log.error("simulator stopped", { err });
  });
  return { abort: () => stopSimulator.abort(), finished: run };
}
