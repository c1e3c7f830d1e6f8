/**
 * The pipelines' Kafka consumer: the batches of one fetch (one per partition, handled side
 * by side) become one sink write (one insert per table), and only then are their offsets
 * committed. While that write runs, the next fetch is already fetched and decoded and its
 * write queued (orderedCommits: each partition's offsets are committed in order, after the
 * write that holds them; a failure seeks the partition back).
 * A message that cannot be decoded, or whose transaction the sink set aside (it fails
 * on its own while the rest is stored), goes to the topic's dead-letter twin with the
 * original key and value and headers saying why, where and when; if that write
 * fails, nothing is committed. A failing sink write throws, so the batch is
 * delivered again from the last committed offset: never log-and-ack.
 */
import type { Consumer, Kafka, KafkaMessage, Producer } from "kafkajs";
import type { FactSink, WriteResult } from "../sink";
import type { TxEnvelope } from "../../ingest/contract/envelope";
import type { Logger } from "../../infra/log";
import { decodeEnvelope, dlqTopic, TOPICS } from "./topics";
import { createRecoveringProducer, KafkaUnavailable } from "./producer";

export type DeadLetter = { message: KafkaMessage; reason: string; step: string };

/** Pure step: messages → envelopes to store (`from`: the message of each), and dead letters. */
export function splitBatch(messages: KafkaMessage[]): { envelopes: TxEnvelope[]; from: KafkaMessage[]; dead: DeadLetter[] } {
  const envelopes: TxEnvelope[] = [];
  const from: KafkaMessage[] = [];
  const dead: DeadLetter[] = [];
  for (const message of messages) {
    try {
      envelopes.push(decodeEnvelope(message.value));
      from.push(message);
    } catch (err) {
      dead.push({ message, reason: (err as Error).message.slice(0, 500), step: "decode-envelope" });
    }
  }
  return { envelopes, from, dead };
}

/**
 * The producer of dead letters (the consumer's only writes to Kafka). It recovers by itself
 * after a broker outage (producer.ts); a write that fails throws a plain error, which kafkajs
 * takes as retriable: the batch is delivered again, never skipped, and the consumer restarts
 * instead of stopping for good on the broker's non-retriable sequence error.
 */
export async function deadLetterProducer(kafka: Kafka): Promise<Pick<Producer, "send" | "disconnect">> {
  const producer = createRecoveringProducer(kafka, { timeoutMs: DEAD_LETTER_TIMEOUT_MS });
  if (!(await producer.ready(30_000))) throw new KafkaUnavailable("Kafka did not accept the dead-letter producer within 30 s of start");
  return { send: (record) => producer.send(record), disconnect: () => producer.close() };
}

/** A dead-letter write has this long; then the batch is delivered again. */
const DEAD_LETTER_TIMEOUT_MS = 2000;

/**
 * How much one fetch brings. kafkajs's defaults (1 MB per partition, 10 MB in all, answered as
 * soon as one byte is there) made a sink write of a few hundred transactions per partition, and
 * ClickHouse pays per insert (a part per table and view), not per row. A fetch waits up to
 * `maxWaitTimeInMs` for `minBytes`, so a consumer that keeps up still writes in batches.
 */
export const FETCH = { maxBytesPerPartition: 4 << 20, maxBytes: 16 << 20, minBytes: 1 << 20, maxWaitTimeInMs: 200 } as const;

const HEARTBEAT_MS = 3000;
const STOP_TIMEOUT_MS = 8000;
/** how long `stop()` waits for the writes in hand to be stored and committed */
const SETTLE_TIMEOUT_MS = 30_000;

/**
 * One sink write for the batches kafkajs hands over together: it starts the handlers of one
 * fetch's partitions at once (synchronously, up to `partitionsConsumedConcurrently`), so each
 * handler's envelopes are collected until the next turn of the event loop and written
 * together. Each caller gets the transactions of its own that the sink set aside; a failed
 * write fails every caller (each batch is delivered again).
 */
export function fetchWriter(sink: FactSink): (envelopes: TxEnvelope[]) => Promise<WriteResult["rejected"]> {
  let pending: { envelopes: TxEnvelope[]; resolve: (r: WriteResult["rejected"]) => void; reject: (e: unknown) => void }[] | null = null;
  const flush = () => {
    const group = pending!;
    pending = null;
    sink.write(group.flatMap((g) => g.envelopes), { keepRejected: true }).then(
      ({ rejected }) => {
        const bySignature = new Map(rejected.map((r) => [r.envelope.signature, r]));
        for (const g of group) g.resolve(g.envelopes.flatMap((e) => bySignature.get(e.signature) ?? []));
      },
      (err: unknown) => {
        for (const g of group) g.reject(err);
      },
    );
  };
  return (envelopes) =>
    new Promise((resolve, reject) => {
      if (!pending) {
        pending = [];
        setImmediate(flush);
      }
      pending.push({ envelopes, resolve, reject });
    });
}

export type ConsumerStats = { batches: number; messages: number; deadLetters: number; lag: number; /** batch latency histogram (pipelines/metrics.ts) */ batchSeconds?: { startTimer(): () => unknown } };


/**
 * The offsets of each partition's batches, committed in order once their writes are stored,
 * while the consumer already fetches and decodes the next batch (a batch's offset is resolved
 * at once, so kafkajs's next fetch goes on; it is committed only after its write). A batch
 * waits for the partition's previous one (heartbeating), so at most one write is in flight and
 * one queued behind it. When a write or a commit fails, the partition is sought back to the
 * first offset of the batch that failed (every earlier batch of the partition is stored and
 * committed), later batches of it are never committed (`epoch`), and the failure is thrown
 * from the next batch handled: kafkajs retries or restarts the consumer, and what was not
 * committed is delivered again (the sink's gate stores a transaction once).
 */
export function orderedCommits(deps: { seek(p: { topic: string; partition: number; offset: string }): void; commit(p: { topic: string; partition: number; offset: string }): Promise<void> }) {
  const chains = new Map<string, { tail: Promise<void>; epoch: number }>();
  let failure: unknown = null;
  return {
    /**
     * Chains the batch `first..last` of a partition: once every earlier batch of it is
     * committed and `stored` resolves, its offset is committed. Returns the partition's
     * previous link (what the caller waits for before taking more) and its own.
     */
    add(topic: string, partition: number, first: string, last: string, stored: Promise<unknown>): { previous: Promise<void>; done: Promise<void> } {
      const key = `${topic}\u0000${partition}`;
      const chain = chains.get(key) ?? { tail: Promise.resolve(), epoch: 0 };
      chains.set(key, chain);
      const { epoch, tail: previous } = chain;
      const done = (async () => {
        await previous;
        await stored;
        if (chain.epoch !== epoch) return; // sought back meanwhile: delivered again
        await deps.commit({ topic, partition, offset: (BigInt(last) + 1n).toString() });
      })();
      done.catch((err: unknown) => {
        if (chain.epoch !== epoch) return; // an earlier batch of this partition failed first
        chain.epoch++;
        chain.tail = Promise.resolve();
        failure = err;
        try {
          deps.seek({ topic, partition, offset: first });
        } catch {
          // no consumer group now (restarting): it starts again from the committed offset
        }
      });
      chain.tail = done;
      return { previous, done };
    },
    /** Throws (once) the failure of a write or commit since the last call. */
    throwIfFailed() {
      if (failure === null) return;
      const err = failure;
      failure = null;
      throw err;
    },
    /** Resolves once every chained batch has settled. */
    async settled() {
      for (;;) {
        const tails = [...chains.values()].map((c) => c.tail);
        await Promise.allSettled(tails);
        if ([...chains.values()].every((c, i) => c.tail === tails[i])) return;
      }
    },
  };
}

export async function startTransactionConsumer(deps: {
  kafka: Kafka;
  groupId: string;
  sink: FactSink;
  log: Logger;
  stats: ConsumerStats;
  /** default TOPICS.transactions; tests use their own */
  topic?: string;
  /** default FETCH */
  fetch?: Partial<typeof FETCH>;
}): Promise<{ consumer: Consumer; stop(): Promise<void> }> {
  const { kafka, sink, log, stats } = deps;
  const producer = await deadLetterProducer(kafka);
  const consumer = kafka.consumer({ groupId: deps.groupId, heartbeatInterval: HEARTBEAT_MS, sessionTimeout: 30_000, allowAutoTopicCreation: false, ...FETCH, ...deps.fetch });
  const write = fetchWriter(sink);
  const topic = deps.topic ?? TOPICS.transactions;
  const commits = orderedCommits({
    seek: (p) => consumer.seek(p),
    commit: (p) => consumer.commitOffsets([p]),
  });
  let handling = 0;
  // a thrown batch (sink or dead-letter write failed) or a retriable broker error (e.g. the group
  // coordinator still loading) restarts the consumer from the last commit: a warning; a crash
  // kafkajs does not restart from is an error
  consumer.on(consumer.events.CRASH, (e) => {
    const fields = { err: e.payload.error?.message, restart: e.payload.restart, groupId: e.payload.groupId };
    if (e.payload.restart) log.warn("consumer hit an error; it restarts from the last committed offset", fields);
    else log.error("consumer stopped on an error and will not restart; restart the process", fields);
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });

  /** After the batch's write: its dead letters (undecodable, or set aside by the sink) go to the dead-letter topic. */
  async function sendDeadLetters(batch: { topic: string; partition: number }, envelopes: TxEnvelope[], from: KafkaMessage[], dead: DeadLetter[], written: Promise<WriteResult["rejected"]>) {
    const rejected = await written;
    const rejectedReason = new Map(rejected.map((r) => [r.envelope.signature, r.reason]));
    envelopes.forEach((e, i) => {
      const reason = rejectedReason.get(e.signature);
      if (reason !== undefined) dead.push({ message: from[i]!, reason, step: "sink-write" });
    });
    if (!dead.length) return;
    await producer.send({
      topic: dlqTopic(batch.topic),
      acks: -1,
      messages: dead.map(({ message, reason, step }) => ({
        key: message.key,
        value: message.value,
        headers: {
          ...message.headers,
          "dlq-reason": reason,
          "dlq-step": step,
          "dlq-timestamp": new Date().toISOString(),
          "dlq-source": `${batch.topic}/${batch.partition}/${message.offset}`,
        },
      })),
    });
    stats.deadLetters += dead.length;
    for (const d of dead) log.warn("message sent to dead-letter topic", { topic: batch.topic, partition: batch.partition, offset: d.message.offset, reason: d.reason });
  }

  await consumer.run({
    autoCommit: false,
    // every partition of a fetch is handled at once, so the fetch makes one sink write (fetchWriter)
    partitionsConsumedConcurrently: 1024,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
      // a write or commit of an earlier batch failed: its partition was sought back; kafkajs
      // retries (or restarts the consumer) and what was not committed comes again
      commits.throwIfFailed();
      if (!isRunning() || isStale() || batch.messages.length === 0) return;
      handling++;
      try {
        const timer = stats.batchSeconds?.startTimer();
        const { envelopes, from, dead } = splitBatch(batch.messages);
        // joins the fetch's write before anything is awaited (fetchWriter). It throws on failure:
        // the batch is delivered again. A transaction that fails on its own while the rest is
        // stored comes back rejected: it goes to the dead-letter topic too.
        const written = write(envelopes);
        const stored = sendDeadLetters(batch, envelopes, from, dead, written);
        const first = batch.messages[0]!.offset;
        const last = batch.messages[batch.messages.length - 1]!.offset;
        const { previous, done } = commits.add(batch.topic, batch.partition, first, last, stored);
        done.then(
          () => {
            stats.batches++;
            stats.messages += batch.messages.length;
            timer?.();
            log.debug("batch stored", { topic: batch.topic, partition: batch.partition, firstOffset: first, lastOffset: last, messages: batch.messages.length });
          },
          () => {}, // thrown from the next batch handled (commits.throwIfFailed)
        );
        // the next fetch starts from here while this batch's write waits its turn; its offset is
        // committed only once stored (orderedCommits; a failure seeks back)
        resolveOffset(last);
        // a write can outlast the session timeout (a redelivery after a crash checks its
        // transactions table by table): heartbeats keep the partitions assigned meanwhile
        const beat = setInterval(() => void heartbeat().catch(() => {}), HEARTBEAT_MS);
        try {
          await heartbeat();
          await previous.catch(() => {});
        } finally {
          clearInterval(beat);
        }
        commits.throwIfFailed();
      } finally {
        handling--;
      }
    },
  });
  return {
    consumer,
    async stop() {
      // stops fetching; the batches in hand are stored and committed first (for up to
      // SETTLE_TIMEOUT_MS). kafkajs's disconnect can hang for good after the consumer restarted
      // on broker errors (seen after a broker restart, with the code before 2026-11-27 too):
      // after STOP_TIMEOUT_MS the process stops anyway. Offsets are committed only after each
      // write, so a batch cut short is delivered again and the sink's gate stores it once.
      const finished = async () => {
        try {
          consumer.pause([{ topic }]);
        } catch {
          // not running (restarting): nothing more is fetched anyway
        }
        for (;;) {
          await commits.settled();
          if (handling === 0) break;
          await Bun.sleep(20);
        }
        await commits.settled();
      };
      await Promise.race([finished(), Bun.sleep(SETTLE_TIMEOUT_MS)]);
      const left = await Promise.race([consumer.disconnect().then(() => true), Bun.sleep(STOP_TIMEOUT_MS).then(() => false)]);
      if (!left) log.warn("the Kafka consumer did not stop in time; stopping without leaving the group (its partitions move on after the session timeout)", { timeoutMs: STOP_TIMEOUT_MS });
      await producer.disconnect();
    },
  };
}
