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
import { encodeMessage, partitionKey } from "./topics";
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

type Message = { key: string; value: string };

/**
 * Group commit for the producer: the messages of publishes that arrive while a send is under
 * way go out together in the next one, in runs of at most `maxBytes` (bySize). kafkajs's
 * idempotent producer holds one lock per broker for a whole produce round trip, so one send
 * per webhook call queued the calls behind each other (64 concurrent calls timed out at 2 s
 * while the machine was busy). A caller resolves once every run holding its messages is
 * acknowledged; a failed run fails every caller not yet acknowledged in its group, and the
 * rest of the group is not sent. Order is kept: one run at a time, in arrival order. A caller
 * not acknowledged within `timeoutMs` of its publish is failed (KafkaUnavailable); whether its
 * messages were written is then unknown, as with any timed-out send (the sink's gate stores a
 * redelivered transaction once).
 */
export function coalescingSender(send: (messages: Message[]) => Promise<unknown>, maxBytes: number, timeoutMs: number) {
  type Caller = { messages: Message[]; runs: number; settled: boolean; resolve: () => void; reject: (e: unknown) => void; timer?: ReturnType<typeof setTimeout> };
  const queue: Caller[] = [];
  let sending = false;
  const settle = (c: Caller, err?: unknown) => {
    if (c.settled) return;
    c.settled = true;
    clearTimeout(c.timer);
    if (err === undefined) c.resolve();
    else c.reject(err);
  };
  async function pump() {
    sending = true;
    while (queue.length) {
      const group = queue.splice(0).filter((c) => !c.settled);
      const owned = group.flatMap((c) => c.messages.map((m) => ({ ...m, caller: c })));
      const runs = bySize(owned, maxBytes).map((run) => {
        const callers = new Set(run.map((m) => m.caller));
        for (const c of callers) c.runs++;
        return { messages: run.map(({ key, value }) => ({ key, value })), callers };
      });
      for (const run of runs) {
        try {
          await send(run.messages);
        } catch (err) {
          for (const c of group) settle(c, err);
          break;
        }
        for (const c of run.callers) if (--c.runs === 0) settle(c);
      }
    }
    sending = false;
  }
  return (messages: Message[]) =>
    new Promise<void>((resolve, reject) => {
      const caller: Caller = { messages, runs: 0, settled: false, resolve, reject };
      caller.timer = setTimeout(() => {
        const queued = queue.indexOf(caller);
        if (queued !== -1) queue.splice(queued, 1);
        settle(caller, new KafkaUnavailable(`Kafka did not acknowledge within ${timeoutMs} ms`));
      }, timeoutMs);
      queue.push(caller);
      if (!sending) void pump();
    });
}

/** `topic` is required: a default once made a process publish to a topic other than the configured KAFKA_TOPIC. */
export async function createKafkaBus(kafka: Kafka, opts: { topic: string; sendTimeoutMs?: number }): Promise<KafkaBus> {
  const timeoutMs = opts.sendTimeoutMs ?? 2000;
  const producer = createRecoveringProducer(kafka, { timeoutMs });
  // connected at start: a broker that is not there fails the start, not the first webhook
  if (!(await producer.ready(START_TIMEOUT_MS))) {
    await producer.close();
    throw new KafkaUnavailable(`Kafka did not accept a producer within ${START_TIMEOUT_MS / 1000} s of start`);
  }
  const send = coalescingSender((messages) => producer.send({ topic: opts.topic, acks: -1, messages }), MAX_SEND_BYTES, timeoutMs);
  return {
    async publish(batch: TxEnvelope[]) {
      if (batch.length === 0) return;
      await send(batch.map((env) => ({ key: partitionKey(env), value: encodeMessage(env) })));
    },
    ready: () => producer.ready(),
    close: () => producer.close(),
  };
}
