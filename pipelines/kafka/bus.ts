/**
 * The Kafka bus (scaled mode): `publish` resolves once every message is
 * acknowledged by all in-sync replicas (idempotent producer, acks = all), and
 * rejects fast when Kafka is unavailable, so the webhook answers 503 and Helius
 * retries; nothing is answered 200 that is not stored.
 */
import { Kafka, logLevel, type Producer } from "kafkajs";
import type { Bus } from "../bus";
import type { TxEnvelope } from "../../ingest/contract/envelope";
import { TOPICS, encodeEnvelope, partitionKey } from "./topics";

export class BusUnavailable extends Error {}

export function kafkaClient(brokers: string[], clientId: string): Kafka {
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 } });
}

export async function createKafkaBus(kafka: Kafka, opts: { sendTimeoutMs?: number; topic?: string } = {}): Promise<Bus> {
  const topic = opts.topic ?? TOPICS.transactions;
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5, allowAutoTopicCreation: false });
  await producer.connect();
  const timeout = opts.sendTimeoutMs ?? 2000;
  return {
    async publish(batch: TxEnvelope[]) {
      if (batch.length === 0) return;
      const send = producer.send({
        topic,
        acks: -1,
        messages: batch.map((env) => ({ key: partitionKey(env), value: encodeEnvelope(env) })),
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BusUnavailable(`Kafka did not acknowledge within ${timeout} ms`)), timeout);
      });
      try {
        await Promise.race([send, expired]);
      } catch (err) {
        throw err instanceof BusUnavailable ? err : new BusUnavailable(`Kafka refused the batch: ${(err as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await producer.disconnect();
    },
  };
}
