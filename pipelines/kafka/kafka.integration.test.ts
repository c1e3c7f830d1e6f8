import { describe, expect, test, beforeAll, afterAll } from "bun:test";
import { randomUUID } from "node:crypto";
import type { Kafka } from "kafkajs";
import { testEngines } from "../../infra/testing/engines";
import { readTopic, testKafkaBrokers } from "../../infra/testing/kafka";
import { createLogger } from "../../infra/log";
import { createSimulator, fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { toEnvelopes } from "../../ingest/helius/handle";
import { PoolRegistry } from "../platform/registry";
import { createMetrics } from "../metrics";
import { createFactSink } from "../sink";
import { createKafkaBus, kafkaClient } from "./bus";
import { ensureTopics, consumerLag } from "./admin";
import { startTransactionConsumer, type ConsumerStats } from "./consumer";
import { TOPICS, dlqTopic } from "./topics";
import { until } from "../../infra/testing/wait";

// Real broker (infra/kafka/up), real embedded Postgres and chDB.
const SEED = 31;
let kafka: Kafka;
// Each run has its own topic: the broker keeps earlier runs' messages.
const TOPIC = `${TOPICS.transactions}.test-${randomUUID().slice(0, 8)}`;
const stops: (() => Promise<unknown>)[] = [];

describe("Kafka bus and consumer (real broker)", () => {
  beforeAll(async () => {
    kafka = kafkaClient(await testKafkaBrokers(), `test-${randomUUID()}`);
    await ensureTopics(kafka, { partitions: 3, replication: 1, topics: [TOPIC] });
  }, 240_000);
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [TOPIC, dlqTopic(TOPIC)] }).catch(() => {});
    await admin.disconnect();
  });

  test("published transactions are stored once, through the consumer, and offsets are committed", async () => {
    const engines = await testEngines();
    const configs = fixtureSimConfigs(SEED);
    const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(configs));
    const sink = createFactSink({ ...engines, registry, metrics: createMetrics(), log: createLogger("error") });
    const sim = createSimulator({ seed: SEED, configs, pools: 3 });
    const envelopes = toEnvelopes(sim.next(600), "simulator");
    const mints = sim.state().pools.map((p) => p.mint);
    const trades = envelopes.flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;

    const bus = await createKafkaBus(kafka, { topic: TOPIC });
    stops.push(() => bus.close());
    for (let i = 0; i < envelopes.length; i += 100) await bus.publish(envelopes.slice(i, i + 100));
    await bus.publish(envelopes.slice(0, 200)); // delivered twice

    const groupId = `test-${randomUUID()}`;
    const stats: ConsumerStats = { batches: 0, messages: 0, deadLetters: 0, lag: 0 };
    const consumer = await startTransactionConsumer({ topic: TOPIC, kafka, groupId, sink, log: createLogger("error"), stats });
    stops.push(() => consumer.stop());
    const count = () => engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades WHERE mint IN {m:Array(String)}", { m: mints });
    await until("all trades stored", async () => ((await count())[0]!.n === String(trades) ? true : undefined));
    await until("lag 0", async () => ((await consumerLag(kafka, groupId, TOPIC)) === 0 ? true : undefined));
    const [candles] = await engines.ch.query<{ n: string }>("SELECT toString(sum(trades)) AS n FROM candles_1m WHERE mint IN {m:Array(String)}", { m: mints });
    expect(candles!.n).toBe(String(trades));
    expect(stats.messages).toBeGreaterThanOrEqual(800);
    // this consumer's sink knows only this test's configs; it must not see the next test's messages
    await consumer.stop();
  }, 120_000);

  test("a poison message goes to the dead-letter topic with why, where and when; later messages still flow", async () => {
    const engines = await testEngines();
    const configs = fixtureSimConfigs(SEED + 1);
    const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(configs));
    const sink = createFactSink({ ...engines, registry, metrics: createMetrics(), log: createLogger("error") });
    const sim = createSimulator({ seed: SEED + 1, configs, pools: 2 });
    const envelopes = toEnvelopes(sim.next(50), "simulator");
    const mints = sim.state().pools.map((p) => p.mint);

    const producer = kafka.producer();
    await producer.connect();
    const poisonKey = `poison-${randomUUID()}`;
    await producer.send({ topic: TOPIC, messages: [{ key: poisonKey, value: "{not json", headers: { origin: "test" } }] });
    await producer.disconnect();
    const bus = await createKafkaBus(kafka, { topic: TOPIC });
    stops.push(() => bus.close());
    await bus.publish(envelopes);

    const groupId = `test-${randomUUID()}`;
    const stats: ConsumerStats = { batches: 0, messages: 0, deadLetters: 0, lag: 0 };
    const consumer = await startTransactionConsumer({ topic: TOPIC, kafka, groupId, sink, log: createLogger("error"), stats });
    stops.push(() => consumer.stop());

    const expected = envelopes.flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;
    await until("later messages stored", async () => {
      const [r] = await engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades WHERE mint IN {m:Array(String)}", { m: mints });
      return r!.n === String(expected) ? true : undefined;
    });

    // read the DLQ back and find our poison message with its original key, value and headers (the
    // dead letters of a fetch are sent once its write is stored, so they may come just after it)
    const dead = await until("the dead letter", async () => (await readTopic(kafka, dlqTopic(TOPIC))).find((m) => m.key?.toString() === poisonKey));
    const headers = Object.fromEntries(Object.entries(dead?.headers ?? {}).map(([k, v]) => [k, String(v)]));
    expect(dead?.value?.toString()).toBe("{not json");
    expect(headers.origin).toBe("test");
    expect(headers["dlq-step"]).toBe("decode-envelope");
    expect(headers["dlq-reason"]).toBeString();
    expect(Number.isNaN(Date.parse(headers["dlq-timestamp"]!))).toBe(false);
    expect(headers["dlq-source"]).toStartWith(`${TOPIC}/`);
    expect(stats.deadLetters).toBeGreaterThanOrEqual(1);
    await consumer.stop();
  }, 120_000);
});
