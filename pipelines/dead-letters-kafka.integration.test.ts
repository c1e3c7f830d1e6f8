import { expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { Kafka, KafkaMessage } from "kafkajs";
import { testEngines } from "../infra/testing/engines";
import { testKafkaBrokers } from "../infra/testing/kafka";
import { until } from "../infra/testing/wait";
import { createLogger } from "../infra/log";
import { createSimulator, fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { toEnvelopes } from "../ingest/helius/handle";
import type { PoolCreated } from "../ingest/contract/facts";
import { PoolRegistry } from "./platform/registry";
import { createMetrics } from "./metrics";
import { createFactSink } from "./sink";
import { createKafkaBus, kafkaClient } from "./kafka/bus";
import { ensureTopics } from "./kafka/admin";
import { startTransactionConsumer, type ConsumerStats } from "./kafka/consumer";
import { dlqTopic, TOPICS } from "./kafka/topics";

// Real broker (a private one the tests start), real embedded Postgres and chDB.
const SEED = 97;

test("Kafka: a transaction that fails on its own goes to the dead-letter topic; the rest is stored and committed", async () => {
  const kafka = kafkaClient(await testKafkaBrokers(), `test-${randomUUID()}`);
  // a topic of this run's own, of one partition: the bad transaction and the good ones are fetched together
  const TOPIC = `${TOPICS.transactions}.dead-test-${randomUUID().slice(0, 8)}`;
  await ensureTopics(kafka, { partitions: 1, replication: 1, topics: [TOPIC] });
  const stops: (() => Promise<unknown>)[] = [];
  try {
    await setAsideThroughKafka(kafka, TOPIC, stops);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [TOPIC, dlqTopic(TOPIC)] }).catch(() => {});
    await admin.disconnect();
  }
}, 240_000);

async function setAsideThroughKafka(kafka: Kafka, TOPIC: string, stops: (() => Promise<unknown>)[]) {
  const engines = await testEngines();
  const configs = fixtureSimConfigs(SEED);
  const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(configs));
  const sim = createSimulator({ seed: SEED, configs, pools: 2 });
  const good = toEnvelopes(sim.next(200), "simulator");
  const mints = sim.state().pools.map((p) => p.mint);
  // a message as an older ingest could have published it: a NUL Postgres cannot store
  const bad = toEnvelopes(createSimulator({ seed: SEED + 1, configs, pools: 1 }).next(1), "helius")[0]!;
  bad.facts.find((f): f is PoolCreated => f.kind === "pool_created")!.name = "bad\u0000name";
  const bus = await createKafkaBus(kafka, { topic: TOPIC });
  stops.push(() => bus.close());
  await bus.publish([...good.slice(0, 100), bad, ...good.slice(100)]);

  const sink = createFactSink({ ...engines, registry, metrics: createMetrics(), log: createLogger("error") });
  const stats: ConsumerStats = { batches: 0, messages: 0, deadLetters: 0, lag: 0 };
  const consumer = await startTransactionConsumer({ topic: TOPIC, kafka, groupId: `test-${randomUUID()}`, sink, log: createLogger("error"), stats });
  stops.push(() => consumer.stop());

  const expected = good.flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;
  await until("the good transactions stored and committed", async () => {
    const [r] = await engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades WHERE mint IN {m:Array(String)}", { m: mints });
    return r!.n === String(expected) && stats.messages === good.length + 1 ? true : undefined;
  });
  expect(stats.deadLetters).toBe(1);

  const reader = kafka.consumer({ groupId: `dlq-reader-${randomUUID()}` });
  stops.push(() => reader.disconnect());
  await reader.connect();
  await reader.subscribe({ topic: dlqTopic(TOPIC), fromBeginning: true });
  const seen: KafkaMessage[] = [];
  void reader.run({ eachMessage: async ({ message }) => void seen.push(message) });
  const dead = await until("the dead letter", async () => seen[0]);
  expect(JSON.parse(dead.value!.toString()).signature).toBe(bad.signature);
  expect(String(dead.headers!["dlq-step"])).toBe("sink-write");
  expect(String(dead.headers!["dlq-reason"])).toContain("0x00");
  // the consumer keeps it out of Postgres: the topic is where it is kept
  expect((await engines.sql`SELECT 1 FROM sink_dead_letters WHERE signature = ${bad.signature}`).length).toBe(0);
}
