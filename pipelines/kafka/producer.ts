/**
 * The idempotent Kafka producer, made to recover by itself from a broker outage.
 *
 * kafkajs keeps an idempotent producer's sequence numbers in memory and rolls them back
 * when a produce request fails, even when the broker did append the batch (the
 * connection dropped after the write, a timeout). From then on the broker and kafkajs
 * disagree: every later send of that producer id is refused with
 * OUT_OF_ORDER_SEQUENCE_NUMBER, and kafkajs never resets its sequences (tulios/kafkajs#598);
 * worse, a new batch that happens to reuse the sequence range of an appended one is taken
 * by the broker for a duplicate, acknowledged and dropped. So a producer whose send failed
 * (or did not answer in time) is never used again: it is retired (disconnected once its
 * sends in flight have settled) and the next send connects a fresh one, which gets a new
 * producer id from the broker and starts its sequences at 0. A batch refused for the
 * producer's id, epoch or sequence was not written (on the refused partitions), so it is
 * sent once more at once on a fresh producer, inside the same deadline.
 *
 * What this costs: a batch whose send failed but that the broker did append is in the
 * topic once more when its sender retries (Helius after a 503, the consumer after a failed
 * dead-letter write), and so are the records of a refused batch that went to partitions
 * which did take them. The sink's exactly-once gate stores a transaction once however
 * often it arrives, so that is harmless (a dead letter can be there twice); nothing
 * acknowledged is lost, since an acknowledgement comes only from a healthy producer.
 */
import type { Kafka, Producer, ProducerRecord, RecordMetadata } from "kafkajs";
import { retry } from "../../infra/retry";

/** Kafka did not take the batch (down, refused, or too slow): the caller answers 503 or redelivers. */
export class KafkaUnavailable extends Error {}

/** Broker answers that refuse a batch because of the producer's id, epoch or sequence: nothing was written. */
const REFUSED_FOR_PRODUCER_STATE = new Set(["OUT_OF_ORDER_SEQUENCE_NUMBER", "UNKNOWN_PRODUCER_ID", "INVALID_PRODUCER_EPOCH", "INVALID_PRODUCER_ID_MAPPING"]);

/** Whether `err` (or what it wraps: kafkajs nests causes and per-broker errors) is such a refusal. */
export function refusedForProducerState(err: unknown): boolean {
  const e = err as { type?: unknown; cause?: unknown; errors?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  if (typeof e.type === "string" && REFUSED_FOR_PRODUCER_STATE.has(e.type)) return true;
  if (e.cause && refusedForProducerState(e.cause)) return true;
  return Array.isArray(e.errors) && e.errors.some(refusedForProducerState);
}

export type RecoveringProducer = {
  /** Resolves once Kafka acknowledged the record (acks as given); else rejects with KafkaUnavailable within the deadline. */
  send(record: ProducerRecord): Promise<RecordMetadata[]>;
  /** Whether a producer is connected, or can be connected within `timeoutMs` (default: the send deadline; a fresh one gets a producer id from the broker). */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
};

type Slot = { producer: Producer; connected: Promise<void>; inFlight: number; retired: boolean };

export function createRecoveringProducer(kafka: Kafka, opts: { timeoutMs?: number } = {}): RecoveringProducer {
  const timeoutMs = opts.timeoutMs ?? 2000;
  let current: Slot | null = null;
  let closed = false;
  const slots = new Set<Slot>();

  const disconnect = (slot: Slot) => {
    slots.delete(slot);
    return slot.producer.disconnect().catch(() => {});
  };
  const retire = (slot: Slot) => {
    if (current === slot) current = null;
    if (slot.retired) return;
    slot.retired = true;
    if (slot.inFlight === 0) void disconnect(slot);
  };
  const take = (): Slot => {
    if (closed) throw new KafkaUnavailable("the Kafka producer is closed");
    if (current) return current;
    // kafkajs retries an idempotent producer's sends forever by default; a retired producer's
    // abandoned send would then keep a connection and retry loop alive for the whole outage.
    // Bounded here: a send that fails retires its producer anyway.
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5, allowAutoTopicCreation: false, retry: { retries: 2 } });
    const slot: Slot = { producer, connected: producer.connect(), inFlight: 0, retired: false };
    slot.connected.catch(() => retire(slot));
    slots.add(slot);
    current = slot;
    return slot;
  };
  const use = async <T>(slot: Slot, fn: () => Promise<T>): Promise<T> => {
    slot.inFlight++;
    try {
      await slot.connected;
      return await fn();
    } catch (err) {
      retire(slot);
      throw err;
    } finally {
      if (--slot.inFlight === 0 && slot.retired) void disconnect(slot);
    }
  };
  /** Runs `fn` under the deadline; on expiry the slot in use is retired (the outcome is unknown) and `fn` is told to stop. */
  const withDeadline = async <T>(what: string, fn: (signal: AbortSignal, using: (s: Slot) => void) => Promise<T>, ms = timeoutMs): Promise<T> => {
    const abort = new AbortController();
    let slot: Slot | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        if (slot) retire(slot);
        reject(new KafkaUnavailable(`Kafka did not ${what} within ${ms} ms`));
      }, ms);
    });
    const work = fn(abort.signal, (s) => (slot = s));
    work.catch(() => {}); // after the deadline its failure is no one's to handle
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async send(record) {
      try {
        return await withDeadline("acknowledge", (signal, using) =>
          retry(
            () => {
              const slot = take();
              using(slot);
              return use(slot, () => slot.producer.send(record));
            },
            { retries: 1, minDelayMs: 0, maxDelayMs: 0, shouldRetry: refusedForProducerState, signal },
          ),
        );
      } catch (err) {
        throw err instanceof KafkaUnavailable ? err : new KafkaUnavailable(`Kafka refused the batch: ${(err as Error).message}`);
      }
    },
    async ready(ms = timeoutMs) {
      try {
        await withDeadline(
          "answer",
          async (_, using) => {
            const slot = take();
            using(slot);
            await use(slot, async () => {});
          },
          ms,
        );
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      closed = true;
      current = null;
      await Promise.all([...slots].map(disconnect));
    },
  };
}
