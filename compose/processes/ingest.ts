/**
 * The ingest process (scaled mode, `ingest/main.ts`): the Helius webhook receiver. Decodes
 * on worker threads and publishes to Kafka; answers 200 only once Kafka acknowledged, 503
 * fast when it cannot. Stateless: run as many as needed behind a load balancer.
 */
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { createApp } from "../../api/app";
import { createDecodePool } from "../../ingest/helius/decode-pool";
import { processHandle, startStep } from "../boot";
import { kafkaBus, kafkaOrExit, kafkaWithTopic } from "../kafka";

export async function startIngest(config: Config, log: Logger) {
  const kafkaConfig = kafkaOrExit(config, "ingest");
  if (!config.webhookSecret) log.warn("HELIUS_WEBHOOK_SECRET is not set: the webhook refuses every call with 401");
  const kafka = await startStep(log, "kafka topics", () => kafkaWithTopic(kafkaConfig, "ingest"));
  const bus = await startStep(log, "kafka producer", () => kafkaBus(kafka, kafkaConfig));
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
  const server = await startStep(log, `listening on port ${config.port}`, () => app.listen({ port: config.port, hostname: "0.0.0.0" }), () => [() => bus.close(), () => decoder.close()]);
  const port = server.server?.port;
  log.info("listening", { port, brokers: kafkaConfig.brokers });
  return processHandle(log, port, () => [() => server.stop(), () => bus.close(), () => decoder.close()]);
}
