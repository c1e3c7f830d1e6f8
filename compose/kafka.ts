/**
 * Kafka as the processes use it (scaled mode): the client with the topic created, the
 * producer bus, and the consumer lag poll.
 */
import type { Config } from "../infra/config";
import type { Logger } from "../infra/log";
import { createKafkaBus, kafkaClient } from "../pipelines/kafka/bus";
import { consumerLag, ensureTopics } from "../pipelines/kafka/admin";
import type { ConsumerStats } from "../pipelines/kafka/consumer";

export type KafkaConfig = NonNullable<Config["kafka"]>;

/** KAFKA_BROKERS, or exit 2 saying the process needs it. */
export function kafkaOrExit(config: Config, processName: string): KafkaConfig {
  if (config.kafka) return config.kafka;
  console.error(`the ${processName} process needs KAFKA_BROKERS (for one process without Kafka, run \`npm start\`)`);
  process.exit(2);
}

/** A client named `clientId` with the transactions topic created. */
export async function kafkaWithTopic(kafkaConfig: KafkaConfig, clientId: string) {
  const kafka = kafkaClient([...kafkaConfig.brokers], clientId);
  await ensureTopics(kafka, { ...kafkaConfig, topics: [kafkaConfig.topic] });
  return kafka;
}
export type KafkaClient = Awaited<ReturnType<typeof kafkaWithTopic>>;

/** The producer bus on the transactions topic. */
export const kafkaBus = (kafka: KafkaClient, kafkaConfig: KafkaConfig) => createKafkaBus(kafka, { topic: kafkaConfig.topic });

/** Polls the consumer group's lag into `stats` every 10 s; `each` runs after every poll. Returns the timer. */
export function pollConsumerLag(kafka: KafkaClient, kafkaConfig: KafkaConfig, stats: ConsumerStats, log: Logger, each: () => void = () => {}) {
  return setInterval(async () => {
    try {
      stats.lag = await consumerLag(kafka, kafkaConfig.groupId, kafkaConfig.topic);
      each();
    } catch (err) {
      log.warn("consumer lag unavailable", { err: (err as Error).message });
    }
  }, 10_000);
}
