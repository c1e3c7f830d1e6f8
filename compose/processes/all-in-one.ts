/**
 * The all-in-one process (`main.ts`, the embedded default): engines under DATA_DIR,
 * migrations, the bus (in-process, or Kafka when KAFKA_BROKERS is set, with the consumer in
 * this process too), the HTTP API and webhook receiver, reconciliation (transactions and
 * holders), holder counting, the agents' background jobs and runtime (decision cycles), and, with no chain configured,
 * the simulator posting through the real webhook (it also plays a SOL price when no price
 * source is configured, and gives its coins images and descriptions). Any start-up failure
 * logs one line and exits 1.
 */
import { randomBytes } from "node:crypto";
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { createSolPriceService } from "../../infra/sol-price";
import { simulatedMetadataResolver } from "../../ingest/simulator/coin-media";
import { startAgentBackground } from "../../agents/background";
import { contestJobDeps } from "../contests";
import { startTransactionConsumer } from "../../pipelines/kafka/consumer";
import { openPlatform, processHandle } from "../boot";
import { priceSources, startRuntime, wirePlatform } from "../wiring";
import { kafkaBus, kafkaWithTopic, pollConsumerLag } from "../kafka";
import { startHolderReconciliation, startReconciliation } from "../reconciliation";
import { startSimulatorPosting } from "./simulator";
import { withLaunchVaultKey } from "./vault-key";
import { startPlatformTreasury, startTreasuryExecutor } from "../treasury";

export async function startAllInOne(given: Config, log: Logger) {
  const withKey = await withLaunchVaultKey(given, log); // it serves the Launch API
  // any later start-up failure: one line, the engines stopped, exit 1 (boot.ts startFailed)
  const { pg, ch, engines, step, rpc, configs, simConfigs, config } = await openPlatform(withKey, log);

  // The simulator posts through the real webhook; without a configured secret it gets a per-run one.
  const webhookSecret = config.webhookSecret ?? (simConfigs ? randomBytes(24).toString("base64url") : null);
  if (!webhookSecret) log.warn("HELIUS_WEBHOOK_SECRET is not set: the webhook refuses every call with 401");

  const kafkaConfig = config.kafka;
  const kafka = kafkaConfig ? await step("kafka topics", () => kafkaWithTopic(kafkaConfig, "all-in-one")) : null;
  const bus = kafka && kafkaConfig ? await step("kafka producer", () => kafkaBus(kafka, kafkaConfig)) : undefined;
  // The simulator plays a SOL price too when no real source is configured (the demo shows USD figures).
  const sources = priceSources(config, rpc, { simulator: simConfigs !== null });
  const priceSimulated = sources.some((s) => s.simulated);
  const price = createSolPriceService(sources, log.child({ stage: "price" }));
  const platform = await step("platform", () => wirePlatform({ config, log, engines, configs, webhookSecret, rpc, bus, price, listenUrl: pg.url }));
  const consumer =
    kafka && kafkaConfig
      ? await step("kafka consumer", () =>
          startTransactionConsumer({ kafka, topic: kafkaConfig.topic, groupId: kafkaConfig.groupId, sink: platform.sink, log: log.child({ stage: "consumer" }), stats: platform.consumerStats }),
        )
      : null;
  const lagTimer = kafka && kafkaConfig ? pollConsumerLag(kafka, kafkaConfig, platform.consumerStats, log) : null;
  const server = await step(`listening on port ${config.port}`, () => platform.app.listen({ port: config.port, hostname: "0.0.0.0" }));
  const port = server.server?.port;
  log.info("listening", { port, bus: kafka ? "kafka" : "in-process", configs: configs.all.map((c) => `${c.role}:${c.address}`) });

  // Heals what the webhook missed (not needed on the simulated chain, which the webhook gets whole).
  const holdersReconciler = simConfigs ? null : startHolderReconciliation(config, engines, rpc, log);
  const reconcileTask = simConfigs ? null : startReconciliation(config, engines, platform.bus, configs, log, holdersReconciler);

  const background = startAgentBackground({
    config,
    sql: pg.sql,
    rpc,
    log,
    launches: platform.launches,
    simulated: simConfigs !== null,
    // the simulator's coins get their images and descriptions through the coin-metadata job
    metadataResolver: simConfigs ? simulatedMetadataResolver(platform.launches.media) : undefined,
    priceHistory: { ch, price, simulated: priceSimulated },
    contests: contestJobDeps(engines, configs, rpc, platform.launches.firewall, log),
  });

  // the agent runtime: states and decision cycles (in demo mode against the built-in demo provider)
  const runtime = startRuntime(config, engines, configs, price, log, { simulated: simConfigs !== null });
  // treasury actions' payments: with a chain only (the simulated chain takes no transactions)
  const treasury = await startPlatformTreasury(config, engines, configs, rpc, log);
  const executor = startTreasuryExecutor(config, engines, configs, rpc, log, { treasuryKey: treasury.treasuryKey });

  let simulator: ReturnType<typeof startSimulatorPosting> | null = null;
  if (simConfigs) {
    log.info("no SOLANA_RPC_URL: the simulator plays a platform through the webhook", {
      seed: config.simulator.seed,
      txPerSecond: config.simulator.txPerSecond,
      platformTokenMint: config.tokenomics.platformTokenMint,
      treasury: config.treasuryAddress,
    });
    if (priceSimulated)
      log.info("no SOL price source configured: the SOL price is simulated (a random walk from the seed; /price/sol reports source aggregator)", {
        seed: config.simulator.seed,
      });
    simulator = startSimulatorPosting({ config, simConfigs, webhookUrl: `http://127.0.0.1:${port}/v1/ingest/helius`, webhookSecret: webhookSecret!, log });
  }

  const handle = processHandle(log, port, () => [
    () => reconcileTask?.stop(),
    () => holdersReconciler?.stop(),
    () => simulator?.abort(),
    () => lagTimer && clearInterval(lagTimer),
    () => background.stop(),
    () => runtime.stop(),
    () => treasury.stop(),
    () => executor?.stop(),
    () => platform.addressSync?.stop(),
    () => simulator?.finished,
    () => platform.realtime?.stop(), // its sockets closed first: the server's stop waits for open connections
    () => server.stop(),
    () => platform.bus.close(),
    () => consumer?.stop(),
    () => platform.sink.settled(),
    () => platform.holders.stop(),
    () => platform.decoder.close(),
    () => ch.close(),
    () => pg.stop(),
  ]);
  return { ...handle, platform, engines };
}
