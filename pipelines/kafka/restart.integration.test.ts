import { describe, expect, test, afterAll } from "bun:test";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Kafka } from "kafkajs";
import { testEngines } from "../../infra/testing/engines";
import { readTopic, testKafka, type TestKafka } from "../../infra/testing/kafka";
import { until } from "../../infra/testing/wait";
import { freePort } from "../../infra/net";
import { createLogger } from "../../infra/log";
import { createSimulator, fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { toEnvelopes } from "../../ingest/helius/handle";
import { PoolRegistry } from "../platform/registry";
import { createMetrics } from "../metrics";
import { createFactSink } from "../sink";
import { createKafkaBus, kafkaClient } from "./bus";
import { consumerLag, ensureTopics } from "./admin";
import { deadLetterProducer, startTransactionConsumer, type ConsumerStats } from "./consumer";
import { dlqTopic } from "./topics";
import type { TxEnvelope } from "../../ingest/contract/envelope";

// A real broker (private to this test process) stopped and started again while producers
// keep sending: sends fail fast while it is down and work again once it is back, with no
// restart of anything; nothing acknowledged is lost, and counts stay exact.
const SEED = 57;
const ROOT = join(import.meta.dir, "..", "..");
const SECRET = "restart-test-secret-0123456789";
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean().catch(() => {});
});

/** What a call did and how long it took; a call still unsettled after `capMs` counts as hanging. */
async function timed(call: () => Promise<unknown>, capMs = 5_000): Promise<{ outcome: "ok" | "failed" | "hanging"; ms: number; error?: string }> {
  const started = performance.now();
  let cap: ReturnType<typeof setTimeout> | undefined;
  const hanging = new Promise<{ outcome: "hanging" }>((resolve) => (cap = setTimeout(() => resolve({ outcome: "hanging" }), capMs)));
  const settled = call().then(
    () => ({ outcome: "ok" as const }),
    (err: Error) => ({ outcome: "failed" as const, error: err.message }),
  );
  const r = await Promise.race([settled, hanging]);
  clearTimeout(cap);
  return { ...r, ms: performance.now() - started };
}

/**
 * Sends under load across a broker restart, as webhooks keep arriving: four senders send
 * items 0, 1, 2, ... one after another; the broker is stopped while sends are in flight.
 * While it is down every send must fail fast; once it is started again, sends must be
 * acknowledged again (the same sender, nothing restarted); then the refused items are sent
 * again (as Helius or the consumer would) until acknowledged. Resolves with the acknowledged items.
 */
async function restartUnderLoad(broker: TestKafka, send: (item: number) => Promise<unknown>): Promise<number[]> {
  const acknowledged: number[] = [];
  const refused: number[] = [];
  const slowFailures: string[] = [];
  let next = 0;
  let running = true;
  let lastError = "";
  const sender = async () => {
    while (running) {
      const item = next++;
      const r = await timed(() => send(item));
      if (r.outcome === "ok") acknowledged.push(item);
      else {
        refused.push(item);
        lastError = r.error ?? r.outcome;
        if (r.ms > 3_000) slowFailures.push(`${r.outcome} after ${Math.round(r.ms)} ms`);
      }
    }
  };
  const senders = Array.from({ length: 4 }, sender);
  try {
    await until("sends acknowledged before the stop", async () => (acknowledged.length >= 20 ? true : undefined));
    await broker.stop();
    const refusedAtStop = refused.length;
    await until("sends refused while the broker is down", async () => (refused.length >= refusedAtStop + 8 ? true : undefined));
    await broker.start();
    const ackedAtStart = acknowledged.length;
    await until(`sends acknowledged again after the restart (last error: ${lastError})`, async () => (acknowledged.length >= ackedAtStart + 20 ? true : undefined));
  } finally {
    running = false;
    await Promise.all(senders);
  }
  expect(slowFailures).toEqual([]); // each refusal came within Helius's patience, and none hung
  for (const item of refused.splice(0))
    await until(`a refused send acknowledged on retry (last error: ${lastError})`, () =>
      send(item).then(
        () => {
          acknowledged.push(item);
          return true;
        },
        (err: Error) => void (lastError = err.message),
      ),
    );
  return acknowledged;
}

/** The private broker, a client, and a fresh topic with its dead-letter twin; null on an external broker. */
async function privateBrokerTopic(name: string) {
  const broker = await testKafka();
  if (broker.external) return null;
  const kafka = kafkaClient(broker.brokers, `restart-${randomUUID()}`);
  const topic = `chain.transactions.restart-${name}-${randomUUID().slice(0, 8)}`;
  await ensureTopics(kafka, { partitions: 3, replication: 1, topics: [topic] });
  return { broker, kafka, topic };
}

/** Stores what is in `topic` through a consumer and the real sink; resolves with the sink's ClickHouse. */
async function storeTopic(kafka: Kafka, topic: string, seed: number) {
  const engines = await testEngines();
  const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(fixtureSimConfigs(seed)));
  const sink = createFactSink({ ...engines, registry, metrics: createMetrics(), log: createLogger("error") });
  const groupId = `restart-${randomUUID()}`;
  const stats: ConsumerStats = { batches: 0, messages: 0, deadLetters: 0, lag: 0 };
  const consumer = await startTransactionConsumer({ topic, kafka, groupId, sink, log: createLogger("error"), stats });
  cleanups.push(() => consumer.stop());
  return { engines, lagZero: () => until("lag 0", async () => ((await consumerLag(kafka, groupId, topic)) === 0 ? true : undefined)) };
}

const tradeCount = (bodies: unknown[][]) => toEnvelopes(bodies.flat(), "helius").flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;

describe("a broker restart while producers keep sending (real broker)", () => {
  test("the bus: publishes fail fast while the broker is down; once it is back, the same bus publishes again and nothing acknowledged is lost", async () => {
    const setup = await privateBrokerTopic("bus");
    if (!setup) return; // an external broker is not ours to stop
    const { broker, kafka, topic } = setup;
    const sim = createSimulator({ seed: SEED, configs: fixtureSimConfigs(SEED), pools: 3 });
    const bus = await createKafkaBus(kafka, { topic });
    cleanups.push(() => bus.close());
    const batches: TxEnvelope[][] = [];
    const acknowledged = await restartUnderLoad(broker, (i) => bus.publish((batches[i] ??= toEnvelopes(sim.next(5), "simulator"))));

    const signatures = new Set((await readTopic(kafka, topic)).map((m) => JSON.parse(m.value!.toString()).signature as string));
    expect(acknowledged.flatMap((i) => batches[i]!).filter((e) => !signatures.has(e.signature))).toEqual([]);
  }, 240_000);

  test("the dead-letter producer: sends fail fast while the broker is down; once it is back, the same producer sends again and nothing acknowledged is lost", async () => {
    const setup = await privateBrokerTopic("dlq");
    if (!setup) return; // an external broker is not ours to stop
    const { broker, kafka, topic } = setup;
    const producer = await deadLetterProducer(kafka);
    cleanups.push(() => producer.disconnect());
    const letter = (key: string) => ({ topic: dlqTopic(topic), acks: -1, messages: [{ key, value: "{not json", headers: { "dlq-step": "decode-envelope" } }] });
    const acknowledged = await restartUnderLoad(broker, (i) => producer.send(letter(`letter-${i}`)));

    const keys = new Set((await readTopic(kafka, dlqTopic(topic))).map((m) => m.key!.toString()));
    expect(acknowledged.map((i) => `letter-${i}`).filter((k) => !keys.has(k))).toEqual([]);
  }, 240_000);

  test("the ingest process: webhook calls get 503 fast while the broker is down; after it is back they are stored without a restart, /readyz returns to 200, counts are exact", async () => {
    const setup = await privateBrokerTopic("ingest");
    if (!setup) return; // an external broker is not ours to stop
    const { broker, kafka, topic } = setup;
    const sim = createSimulator({ seed: SEED + 1, configs: fixtureSimConfigs(SEED + 1), pools: 4 });
    const bodies = Array.from({ length: 24 }, () => sim.next(8));
    const mints = sim.state().pools.map((p) => p.mint);

    const port = await freePort();
    const ingest = Bun.spawn([process.execPath, join(ROOT, "ingest", "main.ts")], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "error", SOLANA_RPC_URL: "", PORT: String(port), KAFKA_BROKERS: broker.brokers.join(","), KAFKA_TOPIC: topic, KAFKA_PARTITIONS: "3", HELIUS_WEBHOOK_SECRET: SECRET },
      stdout: "pipe",
      stderr: "pipe",
    });
    cleanups.push(async () => {
      ingest.kill("SIGKILL");
      await ingest.exited;
    });
    const base = `http://127.0.0.1:${port}`;
    const readyz = async () => (await fetch(`${base}/readyz`)).status;
    const post = (body: unknown) => fetch(`${base}/v1/ingest/helius`, { method: "POST", headers: { authorization: SECRET }, body: JSON.stringify(body) });

    await until("ingest ready", async () => ((await readyz().catch(() => 0)) === 200 ? true : undefined));
    for (const body of bodies.slice(0, 8)) expect((await post(body)).status).toBe(200);
    await broker.stop();
    const down = await Promise.all(
      bodies.slice(8, 16).map(async (body) => {
        const started = performance.now();
        const res = await post(body);
        return { status: res.status, retryAfter: res.headers.get("retry-after") !== null, fast: performance.now() - started < 3_000 };
      }),
    );
    for (const d of down) expect(d).toEqual({ status: 503, retryAfter: true, fast: true });
    expect(await readyz()).toBe(503);
    await broker.start();

    // ready again with no webhook call (a load balancer sends none to an instance that is not ready)
    await until("/readyz 200 after the broker is back", async () => ((await readyz()) === 200 ? true : undefined));
    let last = "";
    for (const body of bodies.slice(8))
      await until(`a webhook call stored after the restart (last answer: ${last})`, async () => {
        const res = await post(body);
        last = `${res.status} ${await res.text()}`;
        return res.status === 200 ? true : undefined;
      });

    // every call answered 200 is stored, once (a 503'd batch that did land is in the topic twice; the sink stores it once)
    const { engines, lagZero } = await storeTopic(kafka, topic, SEED + 1);
    const expected = tradeCount(bodies);
    const trades = async () => Number((await engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades WHERE mint IN {m:Array(String)}", { m: mints }))[0]!.n);
    await until("every trade stored", async () => ((await trades()) === expected ? true : undefined));
    await lagZero();
    expect(await trades()).toBe(expected);
    const [candles] = await engines.ch.query<{ n: string }>("SELECT toString(sum(trades)) AS n FROM candles_1m WHERE mint IN {m:Array(String)}", { m: mints });
    expect(Number(candles!.n)).toBe(expected);
  }, 300_000);
});
