/**
 * The pipelines process (scaled mode): consumes chain transactions from Kafka and
 * stores them (ClickHouse facts, Postgres state), committing offsets only after
 * the rows are stored. Scale by partitions: run up to one process per partition.
 */
import { createLogger } from "../infra/log";
import { configOrExit, healthServer, onShutdown, openEngines, platformConfigs } from "../compose/boot";
import { createSolanaRpc } from "../infra/solana-rpc";
import { enginesReady } from "../compose/wiring";
import { PoolRegistry } from "./platform/registry";
import { createFactSink } from "./sink";
import { createMetrics, prometheusText, watchConsumer } from "./metrics";
import { createKafkaBus, kafkaClient } from "./kafka/bus";
import { storedSignatures } from "../compose/stored";
import { scheduleReconciliation } from "../ingest/reconcile/reconcile";
import { createChainReader } from "../ingest/backfill/rpc";
import { consumerLag, ensureTopics } from "./kafka/admin";
import { startTransactionConsumer, type ConsumerStats } from "./kafka/consumer";
import { syncOnGraduation, webhookAddressSync } from "../ingest/helius/address-sync-runner";

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
// this process learns graduations, so it keeps the Helius webhook's addresses in step (off unless configured)
const addressSync = webhookAddressSync({ config, sql: pg.sql, configs: configs.all.map((c) => c.address), log: log.child({ stage: "helius-sync" }) });
if (addressSync) syncOnGraduation(registry, addressSync);
const metrics = createMetrics();
const stats: ConsumerStats = { batches: 0, messages: 0, deadLetters: 0, lag: 0 };
watchConsumer(metrics, stats);
const sink = createFactSink({ ch, sql: pg.sql, registry, metrics, log: log.child({ stage: "sink" }), parkedMaxAgeMs: config.parkedFactsMaxAgeHours * 3_600_000 });
const kafka = kafkaClient([...kafkaConfig.brokers], "pipelines");
await ensureTopics(kafka, { ...kafkaConfig, topics: [kafkaConfig.topic] });
const consumer = await startTransactionConsumer({ kafka, topic: kafkaConfig.topic, groupId: kafkaConfig.groupId, sink, log: log.child({ stage: "consumer" }), stats });

// Reconciliation publishes through Kafka like the webhook, so each coin keeps a single writer.
const reconcileBus = config.rpcUrl ? await createKafkaBus(kafka, { topic: kafkaConfig.topic }) : null;
const reconcileTask =
  reconcileBus && config.rpcUrl
    ? scheduleReconciliation({ sql: pg.sql, ch, reader: createChainReader(config.rpcUrl), bus: reconcileBus, stored: storedSignatures({ ch, sql: pg.sql }), configs, log: log.child({ stage: "reconcile" }) })
    : null;

const lagTimer = setInterval(async () => {
  try {
    stats.lag = await consumerLag(kafka, kafkaConfig.groupId, kafkaConfig.topic);
    log.info("consumer progress", { lag: stats.lag, batches: stats.batches, messages: stats.messages, deadLetters: stats.deadLetters });
  } catch (err) {
    log.warn("consumer lag unavailable", { err: (err as Error).message });
  }
}, 10_000);

const server = healthServer(config.port, () => enginesReady({ ch, sql: pg.sql }), () => prometheusText(metrics), config.metrics.token);
log.info("consuming", { topic: kafkaConfig.topic, groupId: kafkaConfig.groupId, port: server.server?.port });
onShutdown(log, () => [() => addressSync?.stop(), () => reconcileTask?.stop(), () => reconcileBus?.close(), () => clearInterval(lagTimer), () => consumer.stop(), () => sink.settled(), () => server.stop(), () => ch.close(), () => pg.stop()]);
