/**
 * Topics are created at start when missing, with partitions and replication from
 * configuration; consumer lag is read for metrics.
 */
import type { Kafka } from "kafkajs";
import { TOPICS, dlqTopic } from "./topics";

/**
 * A broker that has just started can refuse topic creation for a few seconds (its controller
 * or the new partitions' leaders not ready yet): start-up retries with backoff for about 30 s
 * before giving up with the broker's last answer.
 */
export async function ensureTopics(kafka: Kafka, opts: { partitions: number; replication: number; topics?: string[] }, attempts = 8): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await createMissingTopics(kafka, opts);
    } catch (err) {
      if (attempt >= attempts) throw err;
      await Bun.sleep(Math.min(500 * 2 ** (attempt - 1), 5000));
    }
  }
}

async function createMissingTopics(kafka: Kafka, opts: { partitions: number; replication: number; topics?: string[] }): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted = (opts.topics ?? Object.values(TOPICS)).flatMap((t) => [t, dlqTopic(t)]);
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
