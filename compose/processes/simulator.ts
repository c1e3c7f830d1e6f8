/**
 * The all-in-one process's simulator: it plays the simulated platform through the real
 * webhook at SIMULATOR_TX_PER_SECOND, and continues the same chain after a restart (the
 * count posted so far is kept in DATA_DIR/simulator.json).
 */
import { join } from "node:path";
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { retry } from "../../infra/retry";
import { createSimulator, runSimulator, simulatedPlatform, type SimConfig } from "../../ingest/simulator";
import { readProgress, writeProgress } from "../../ingest/simulator/progress";

/**
 * The configuration the simulated platform runs under: PLATFORM_TOKEN_MINT defaults to the
 * simulated platform token (the seed's first coin, which the simulated treasury buys back
 * and burns) and TREASURY_ADDRESS to the simulated treasury (the configs' fee claimer),
 * each only when unset; the log says which.
 */
export function withSimulatedPlatform(config: Config, simConfigs: SimConfig[], log: Logger): Config {
  const sim = simulatedPlatform(config.simulator.seed, simConfigs);
  const platformTokenMint = config.tokenomics.platformTokenMint ?? sim.platformTokenMint;
  const treasuryAddress = config.treasuryAddress ?? sim.treasury;
  log.info("simulated platform token and treasury", {
    platformTokenMint,
    platformTokenMintFrom: config.tokenomics.platformTokenMint ? "PLATFORM_TOKEN_MINT" : "the simulator",
    treasury: treasuryAddress,
    treasuryFrom: config.treasuryAddress ? "TREASURY_ADDRESS" : "the simulator (its configs' fee claimer)",
  });
  if (platformTokenMint !== sim.platformTokenMint)
    log.warn("PLATFORM_TOKEN_MINT is not the simulated platform token: the simulated buybacks buy and burn another coin", { simulated: sim.platformTokenMint });
  return Object.freeze({ ...config, treasuryAddress, tokenomics: Object.freeze({ ...config.tokenomics, platformTokenMint }) });
}

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
    split: config.tokenomics.split, // the treasury spends as TOKENOMICS_SPLIT says
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
