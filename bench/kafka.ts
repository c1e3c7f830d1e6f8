/**
 * Kafka phase of the benchmark: the same webhook load through the Kafka bus (the
 * consumer writing to the same engines in this process), and the time to drain a
 * backlog of transactions already on the topic.
 */
import { randomUUID } from "node:crypto";
import type { ClickHouse } from "../infra/clickhouse";
import type { wirePlatform } from "../compose/wiring";
import { createKafkaBus, kafkaClient } from "../pipelines/kafka/bus";
import { consumerLag, ensureTopics } from "../pipelines/kafka/admin";
import { startTransactionConsumer, type ConsumerStats } from "../pipelines/kafka/consumer";
import { toEnvelopes } from "../ingest/helius/handle";
import { createSimulator, type Simulator, type SimConfig } from "../ingest/simulator";
import { createLogger } from "../infra/log";
import { round } from "./measure";
import { cpuWindow, type CpuReport } from "./thread-cpu";

type Wire = (opts: { bus?: Awaited<ReturnType<typeof createKafkaBus>> }) => ReturnType<typeof wirePlatform>;

async function countTrades(ch: ClickHouse): Promise<number> {
  return Number((await ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades"))[0]!.n);
}

async function waitFor(fn: () => Promise<boolean>, ms: number) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(100);
  }
}

/** The end-to-end phase's webhook bodies (100 transactions each, simulator seed 8) and the trades they hold. */
export function kafkaBodies(configs: SimConfig[], transactions: number): { bodies: string[]; trades: number } {
  const sim = createSimulator({ seed: 8, configs, startTime: Math.floor(Date.now() / 1000) - transactions, secondsPerTx: 1, pools: 200 });
  const bodies: string[] = [];
  let trades = 0;
  for (let i = 0; i < transactions; i += 100) {
    const txs = sim.next(Math.min(100, transactions - i));
    trades += toEnvelopes(JSON.parse(JSON.stringify(txs)), "simulator").flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;
    bodies.push(JSON.stringify(txs));
  }
  return { bodies, trades };
}

export async function kafkaPhase(opts: {
  brokers: string[];
  ch: ClickHouse;
  wire: Wire;
  secret: string;
  bodies: string[];
  expectedTrades: number;
  concurrency: number;
  backlog: { sim: Simulator; transactions: number };
  say: (m: string) => void;
  /** the embedded Postgres's folder (its CPU is counted) */
  postgresDir: string;
  /** how the backlog's transactions are decoded before they are published (the scaled ingest's fact scope, if any) */
  decodeOptions?: Parameters<typeof toEnvelopes>[3];
}) {
  const { ch, say } = opts;
  const kafka = kafkaClient(opts.brokers, "bench");
  const topic = `chain.transactions.bench-${randomUUID().slice(0, 8)}`;
  await ensureTopics(kafka, { partitions: 6, replication: 1, topics: [topic] });
  const bus = await createKafkaBus(kafka, { topic });
  const platform = await opts.wire({ bus });
  const stats: ConsumerStats = { batches: 0, messages: 0, deadLetters: 0, lag: 0 };
  const log = createLogger("error");
  let consumer = await startTransactionConsumer({ kafka, topic, groupId: `bench-${randomUUID()}`, sink: platform.sink, log, stats });
  const server = platform.app.listen({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${server.server!.port}/v1/ingest/helius`;

  // 1. webhook → Kafka → consumer → ClickHouse, end to end
  const before = await countTrades(ch);
  let next = 0;
  let unavailable = 0;
  const stats0 = { ...stats, writes: platform.metrics.batches, writeMs: platform.metrics.writeMs, stepMs: { ...platform.metrics.stepMs } };
  const cpu0 = cpuWindow(opts.postgresDir);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < opts.bodies.length) {
        const body = opts.bodies[next++]!;
        // a 503 (Kafka did not acknowledge in time) is retried, as Helius does, and counted
        for (;;) {
          const res = await fetch(url, { method: "POST", headers: { authorization: opts.secret, "content-type": "application/json" }, body });
          if (res.ok) break;
          if (res.status !== 503) throw new Error(`webhook answered ${res.status}`);
          unavailable++;
          await Bun.sleep(100);
        }
      }
    }),
  );
  const acceptedSeconds = (performance.now() - t0) / 1000;
  await waitFor(async () => (await countTrades(ch)) - before >= opts.expectedTrades, 600_000);
  const endToEndSeconds = (performance.now() - t0) / 1000;
  const endToEndCpu = cpu0.report(opts.bodies.length * 100);
  const endToEndSink = sinkReport(stats0);
  await consumer.stop();

  // 2. a backlog already on the topic, drained by a fresh consumer group
  say(`kafka: publishing a backlog of ${opts.backlog.transactions} transactions`);
  const backlogTopic = `${topic}.backlog`;
  await ensureTopics(kafka, { partitions: 6, replication: 1, topics: [backlogTopic] });
  const backlogBus = await createKafkaBus(kafka, { topic: backlogTopic, sendTimeoutMs: 60_000 });
  let backlogTrades = 0;
  for (let i = 0; i < opts.backlog.transactions; i += 2000) {
    const envelopes = toEnvelopes(JSON.parse(JSON.stringify(opts.backlog.sim.next(Math.min(2000, opts.backlog.transactions - i)))), "simulator", Date.now(), opts.decodeOptions);
    backlogTrades += envelopes.flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;
    await backlogBus.publish(envelopes);
  }
  const beforeDrain = await countTrades(ch);
  const groupId = `bench-drain-${randomUUID()}`;
  const stats1 = { ...stats, writes: platform.metrics.batches, writeMs: platform.metrics.writeMs, stepMs: { ...platform.metrics.stepMs } };
  const cpu1 = cpuWindow(opts.postgresDir);
  const t1 = performance.now();
  consumer = await startTransactionConsumer({ kafka, topic: backlogTopic, groupId, sink: platform.sink, log, stats });
  await waitFor(async () => (await consumerLag(kafka, groupId, backlogTopic)) === 0 && (await countTrades(ch)) - beforeDrain >= backlogTrades, 1_800_000);
  const drainSeconds = (performance.now() - t1) / 1000;
  const drainCpu = cpu1.report(opts.backlog.transactions);
  const drainSink = sinkReport(stats1);
  await consumer.stop();
  await backlogBus.close();
  await bus.close();
  server.stop();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic, `${topic}.dlq`, backlogTopic, `${backlogTopic}.dlq`] }).catch(() => {});
  await admin.disconnect();
  return {
    trades: opts.expectedTrades,
    webhookAcceptedTradesPerSecond: Math.round(opts.expectedTrades / acceptedSeconds),
    /** webhook calls answered 503 (Kafka too slow to acknowledge) and retried */
    webhook503: unavailable,
    endToEndTradesPerSecond: Math.round(opts.expectedTrades / endToEndSeconds),
    backlogTransactions: opts.backlog.transactions,
    backlogTrades,
    drainSeconds: round(drainSeconds, 1),
    drainTradesPerSecond: Math.round(backlogTrades / drainSeconds),
    profile: { endToEnd: { ...endToEndCpu, ...endToEndSink }, drain: { ...drainCpu, ...drainSink } } as Record<string, CpuReport & ReturnType<typeof sinkReport>>,
  };

  /** Kafka batches and sink writes since `from`. */
  function sinkReport(from: ConsumerStats & { writes: number; writeMs: number; stepMs: Record<string, number> }) {
    const batches = stats.batches - from.batches;
    const writes = platform.metrics.batches - from.writes;
    return {
      kafkaBatches: batches,
      messagesPerBatch: round((stats.messages - from.messages) / Math.max(1, batches), 1),
      sinkWrites: writes,
      transactionsPerWrite: round((stats.messages - from.messages) / Math.max(1, writes), 1),
      sinkWriteSeconds: round((platform.metrics.writeMs - from.writeMs) / 1000, 1),
      /** wall seconds in each step of the sink's writes (lookup, classify, agents, price, write) */
      sinkStepSeconds: Object.fromEntries(Object.entries(platform.metrics.stepMs).map(([k, ms]) => [k, round((ms - (from.stepMs[k] ?? 0)) / 1000, 1)])),
    };
  }
}
