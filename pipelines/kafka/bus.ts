/**
 * The Kafka bus (scaled mode): `publish` resolves once every message is
 * acknowledged by all in-sync replicas (idempotent producer, acks = all), and
 * rejects fast when Kafka is unavailable, so the webhook answers 503 and Helius
 * retries; nothing is answered 200 that is not stored. After a broker outage the
 * bus recovers by itself (a fresh producer id; see producer.ts).
 */
import { Kafka, logLevel } from "kafkajs";
import type { Bus } from "../bus";
import type { TxEnvelope } from "../../ingest/contract/envelope";
import { encodeEnvelope, partitionKey } from "./topics";
import { createRecoveringProducer, KafkaUnavailable } from "./producer";

export { KafkaUnavailable as BusUnavailable };

export function kafkaClient(brokers: string[], clientId: string): Kafka {
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 } });
}

export type KafkaBus = Bus & {
  /** Whether Kafka takes writes now (connects a fresh producer if the last send failed): for readiness. */
  ready(): Promise<boolean>;
};

const START_TIMEOUT_MS = 30_000;

/**
 * Bytes of keys and values one send carries at most. A send's messages for one partition
 * travel as one record batch, which a broker refuses above its `message.max.bytes` (1 MB
 * by default); envelopes carry every balance change of their transaction, so a large
 * batch of one coin's transactions would pass it.
 */
export const MAX_SEND_BYTES = 512 * 1024;

/** `messages` in runs of at most `max` bytes (a single larger message alone). */
export function bySize<M extends { key: string; value: string }>(messages: M[], max: number): M[][] {
  const chunks: M[][] = [];
  let chunk: M[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = Buffer.byteLength(m.key) + Buffer.byteLength(m.value);
    if (chunk.length && bytes + size > max) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(m);
    bytes += size;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

/** `topic` is required: a default once made a process publish to a topic other than the configured KAFKA_TOPIC. */
export async function createKafkaBus(kafka: Kafka, opts: { topic: string; sendTimeoutMs?: number }): Promise<KafkaBus> {
  const producer = createRecoveringProducer(kafka, { timeoutMs: opts.sendTimeoutMs ?? 2000 });
  // connected at start: a broker that is not there fails the start, not the first webhook
  if (!(await producer.ready(START_TIMEOUT_MS))) {
    await producer.close();
    throw new KafkaUnavailable(`Kafka did not accept a producer within ${START_TIMEOUT_MS / 1000} s of start`);
  }
  return {
    async publish(batch: TxEnvelope[]) {
      if (batch.length === 0) return;
      const messages = batch.map((env) => ({ key: partitionKey(env), value: encodeEnvelope(env) }));
      // in order, one send at a time: a later send never overtakes an earlier one
      for (const chunk of bySize(messages, MAX_SEND_BYTES)) await producer.send({ topic: opts.topic, acks: -1, messages: chunk });
    },
    ready: () => producer.ready(),
    close: () => producer.close(),
  };
}
