/**
 * Topics are created at start when missing, with partitions and replication from
 * configuration; consumer lag is read for metrics.
 */
import type { Kafka } from "kafkajs";
import { dlqTopic } from "./topics";
import { retry, type RetryPolicy } from "../../infra/retry";

/**
 * A broker that has just started can refuse topic creation for a few seconds (its controller
 * or the new partitions' leaders not ready yet): start-up retries with backoff for half a minute or so
 * before giving up with the broker's last answer. `topics` is required (each gets its
 * dead-letter twin): a default here once made a process create and use a topic other than
 * the configured KAFKA_TOPIC.
 */
export async function ensureTopics(kafka: Kafka, opts: { partitions: number; replication: number; topics: readonly string[] }, policy: RetryPolicy = TOPIC_CREATION_RETRY): Promise<string[]> {
  return retry(() => createMissingTopics(kafka, opts), policy);
}

/** Eight attempts over about 22 to 45 s (waits of 0.5, 1, 2, 4, 5, 5, 5 s, each jittered up to twice as long). */
export const TOPIC_CREATION_RETRY: RetryPolicy = { retries: 7, minDelayMs: 500, maxDelayMs: 5000 };

async function createMissingTopics(kafka: Kafka, opts: { partitions: number; replication: number; topics: readonly string[] }): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted = opts.topics.flatMap((t) => [t, dlqTopic(t)]);
    const missing = wanted.filter((t) => !existing.has(t));
    if (missing.length)
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({ topic, numPartitions: opts.partitions, replicationFactor: opts.replication })),
      });
    return missing;
  } finally {
    await admin.disconnect();
  }
}

/** Messages not yet committed by the group, per topic (summed over partitions). */
export async function consumerLag(kafka: Kafka, groupId: string, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [ends, committed] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
    const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    return ends.reduce((lag, p) => lag + Math.max(0, Number(p.high) - Math.max(0, done.get(p.partition) ?? 0)), 0);
  } finally {
    await admin.disconnect();
  }
}
