/**
 * The pipelines process (scaled mode): consumes chain transactions from Kafka and
 * stores them (ClickHouse facts, Postgres state), committing offsets only after
 * the rows are stored. Scale by partitions: run up to one process per partition.
 */
import { createLogger } from "../infra/log";
import { configOrExit, healthServer, onShutdown, openEngines, platformConfigs } from "../infra/boot";
import { createSolanaRpc } from "../infra/solana-rpc";
import { enginesReady } from "../infra/wiring";
import { PoolRegistry } from "./platform/registry";
import { createFactSink } from "./sink";
import { createMetrics, prometheusText } from "./metrics";
import { createKafkaBus, kafkaClient } from "./kafka/bus";
import { scheduleReconciliation } from "./reconcile";
import { createChainReader } from "../ingest/backfill/rpc";
import { consumerLag, ensureTopics } from "./kafka/admin";
import { startTransactionConsumer, type ConsumerStats } from "./kafka/consumer";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "pipelines" });
if (!config.kafka) {
  console.error("the pipelines process needs KAFKA_BROKERS (for one process without Kafka, run `npm start`)");
  process.exit(2);
}
const kafkaConfig = config.kafka;
const { pg, ch } = await openEngines(config, log);
const { configs } = await platformConfigs(config, log, config.rpcUrl ? createSolanaRpc(config.rpcUrl) : null);
const registry = await PoolRegistry.load(pg.sql, configs);
const metrics = createMetrics();
const stats: ConsumerStats = { batches: 0, messages: 0, deadLetters: 0, lag: 0 };
const sink = createFactSink({ ch, sql: pg.sql, registry, metrics, log: log.child({ stage: "sink" }), parkedMaxAgeMs: config.parkedFactsMaxAgeHours * 3_600_000 });
const kafka = kafkaClient([...kafkaConfig.brokers], "pipelines");
await ensureTopics(kafka, { ...kafkaConfig, topics: [kafkaConfig.topic] });
const consumer = await startTransactionConsumer({ kafka, topic: kafkaConfig.topic, groupId: kafkaConfig.groupId, sink, log: log.child({ stage: "consumer" }), stats });

// Reconciliation publishes through Kafka like the webhook, so each coin keeps a single writer.
const reconcileBus = config.rpcUrl ? await createKafkaBus(kafka, { topic: kafkaConfig.topic }) : null;
const reconcileTask =
  reconcileBus && config.rpcUrl
    ? scheduleReconciliation({ sql: pg.sql, ch, reader: createChainReader(config.rpcUrl), bus: reconcileBus, configs, log: log.child({ stage: "reconcile" }) })
    : null;

const lagTimer = setInterval(async () => {
  try {
    stats.lag = await consumerLag(kafka, kafkaConfig.groupId, kafkaConfig.topic);
    log.info("consumer progress", { lag: stats.lag, batches: stats.batches, messages: stats.messages, deadLetters: stats.deadLetters });
  } catch (err) {
    log.warn("consumer lag unavailable", { err: (err as Error).message });
  }
}, 10_000);

const server = healthServer(config.port, () => enginesReady({ ch, sql: pg.sql }), () => prometheusText(metrics, stats));
log.info("consuming", { topic: kafkaConfig.topic, groupId: kafkaConfig.groupId, port: server.server?.port });
onShutdown(log, () => [() => reconcileTask?.stop(), () => reconcileBus?.close(), () => clearInterval(lagTimer), () => consumer.stop(), () => sink.settled(), () => server.stop(), () => ch.close(), () => pg.stop()]);
