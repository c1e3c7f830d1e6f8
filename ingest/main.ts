/**
 * The ingest process (scaled mode): the Helius webhook receiver. Decodes on worker
 * threads and publishes to Kafka; answers 200 only once Kafka acknowledged, 503
 * fast when it cannot. Stateless: run as many as needed behind a load balancer.
 */
import { createLogger } from "../infra/log";
import { configOrExit, onShutdown } from "../compose/boot";
import { createApp } from "../api/app";
import { createDecodePool } from "./helius/decode-pool";
import { createKafkaBus, kafkaClient } from "../pipelines/kafka/bus";
import { ensureTopics } from "../pipelines/kafka/admin";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "ingest" });
if (!config.kafka) {
  console.error("the ingest process needs KAFKA_BROKERS (for one process without Kafka, run `npm start`)");
  process.exit(2);
}
if (!config.webhookSecret) log.warn("HELIUS_WEBHOOK_SECRET is not set: the webhook refuses every call with 401");
const kafka = kafkaClient([...config.kafka.brokers], "ingest");
await ensureTopics(kafka, { ...config.kafka, topics: [config.kafka.topic] });
const bus = await createKafkaBus(kafka, { topic: config.kafka.topic });
const decoder = createDecodePool(config.decodeWorkers);
let published = 0;
// ready while Kafka takes our writes: the last publish decides (connected at start); after a
// failed one, each readiness check asks Kafka again (connecting a fresh producer), so the
// instance comes back even when the load balancer sends it no webhook while it is not ready
let kafkaAccepting = true;
const app = createApp({
  log,
  ready: async () => (kafkaAccepting ||= await bus.ready()),
  metricsToken: config.metrics.token,
  metricsText: () => `# TYPE acp_ingest_up gauge\nacp_ingest_up 1\n# TYPE acp_ingest_published_batches_total counter\nacp_ingest_published_batches_total ${published}\n`,
  data: null,
  ingest: {
    bus: {
      publish: async (b) => {
        try {
          await bus.publish(b);
          kafkaAccepting = true;
          published++;
        } catch (err) {
          kafkaAccepting = false;
          throw err;
        }
      },
      close: () => bus.close(),
    },
    decoder,
    webhookSecret: () => config.webhookSecret,
    log: log.child({ stage: "webhook" }),
  },
});
const server = app.listen({ port: config.port, hostname: "0.0.0.0" });
log.info("listening", { port: server.server?.port, brokers: config.kafka.brokers });
onShutdown(log, () => [() => server.stop(), () => bus.close(), () => decoder.close()]);
