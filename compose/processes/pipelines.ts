/**
 * The pipelines process (scaled mode, `pipelines/main.ts`): consumes chain transactions
 * from Kafka and stores them (ClickHouse facts, Postgres state), committing offsets only
 * after the rows are stored, and recounts the holders of the coins they moved; reconciliation
 * (transactions and holders) publishes through Kafka like the webhook, and
 * the Helius webhook's addresses follow graduations. Health, readiness and metrics on PORT.
 */
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { prometheusText } from "../../pipelines/metrics";
import { startTransactionConsumer } from "../../pipelines/kafka/consumer";
import { healthServer, openPlatform, processHandle } from "../boot";
import { enginesReady } from "../wiring";
import { buildStorage, treasuryOf } from "../storage";
import { kafkaBus, kafkaOrExit, kafkaWithTopic, pollConsumerLag } from "../kafka";
import { startHolderReconciliation, startReconciliation } from "../reconciliation";

export async function startPipelines(given: Config, log: Logger) {
  const kafkaConfig = kafkaOrExit(given, "pipelines");
  const { pg, ch, engines, step, configs, config, rpc } = await openPlatform(given, log);
  // this process learns graduations, so it keeps the Helius webhook's addresses in step (off unless configured)
  const { sink, metrics, consumerStats: stats, addressSync, holders } = await step("storage", () => buildStorage(engines, configs, log, { consumer: true, addressSync: config, parkedMaxAgeMs: config.parkedFactsMaxAgeHours * 3_600_000, treasury: treasuryOf(config) }));
  const kafka = await step("kafka topics", () => kafkaWithTopic(kafkaConfig, "pipelines"));
  const consumer = await step("kafka consumer", () =>
    startTransactionConsumer({ kafka, topic: kafkaConfig.topic, groupId: kafkaConfig.groupId, sink, log: log.child({ stage: "consumer" }), stats }),
  );

  // Reconciliation publishes through Kafka like the webhook, so each coin keeps a single writer.
  const reconcileBus = config.rpcUrl ? await step("kafka producer", () => kafkaBus(kafka, kafkaConfig)) : null;
  const holdersReconciler = reconcileBus ? startHolderReconciliation(config, engines, rpc, log) : null;
  const reconcileTask = reconcileBus ? startReconciliation(config, engines, reconcileBus, configs, log, holdersReconciler) : null;

  const lagTimer = pollConsumerLag(kafka, kafkaConfig, stats, log, () =>
    log.info("consumer progress", { lag: stats.lag, batches: stats.batches, messages: stats.messages, deadLetters: stats.deadLetters }),
  );

  const server = await step(`listening on port ${config.port}`, () => healthServer(config.port, () => enginesReady(engines), () => prometheusText(metrics), config.metrics.token));
  const port = server.server?.port;
  log.info("consuming", { topic: kafkaConfig.topic, groupId: kafkaConfig.groupId, port });
  return processHandle(log, port, () => [
    () => addressSync?.stop(),
    () => reconcileTask?.stop(),
    () => holdersReconciler?.stop(),
    () => reconcileBus?.close(),
    () => clearInterval(lagTimer),
    () => consumer.stop(),
    () => sink.settled(),
    () => holders.stop(),
    () => server.stop(),
    () => ch.close(),
    () => pg.stop(),
  ]);
}
