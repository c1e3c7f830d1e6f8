/**
 * A real Kafka broker for integration tests, private to this test process: its
 * own state folder and free ports (so a broker left running elsewhere never
 * interferes), the jars shared with `infra/kafka/up`'s default cache. Stopped when
 * the process exits. With KAFKA_BROKERS set, that external broker is used instead.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { Kafka, KafkaMessage } from "kafkajs";
import { freePort } from "../net";
import { until } from "./wait";
import { runChild } from "./processes";

const SCRIPTS = join(import.meta.dir, "..", "kafka");


export type TestKafka = { brokers: string[]; external: boolean; stop(): Promise<void>; start(): Promise<void>; restart(): Promise<void> };

let started: Promise<TestKafka> | null = null;
let stopStarted: (() => void) | null = null;

/** Stops the private broker (the global test teardown calls it; bun test runs no exit hooks). */
export function stopTestKafka(): void {
  stopStarted?.();
  stopStarted = null;
  started = null;
}

export function testKafka(): Promise<TestKafka> {
  started ??= (async () => {
    if (process.env.KAFKA_BROKERS) {
      const none = async () => {};
      return { brokers: process.env.KAFKA_BROKERS.split(","), external: true, stop: none, start: none, restart: none };
    }
    const state = mkdtempSync(join(tmpdir(), "acp-kafka-"));
    const env = {
      ...process.env,
      KAFKA_STATE_DIR: state,
      KAFKA_LIBS_DIR: join(SCRIPTS, ".state", "libs"),
      KAFKA_PORT: String(await freePort()),
      KAFKA_CONTROLLER_PORT: String(await freePort()),
    };
    const run = async (name: "up" | "down") => {
      const p = await runChild(["bash", join(SCRIPTS, name)], { env }, 600_000); // the first `up` fetches the jars
      if (p.code !== 0) throw new Error(`infra/kafka/${name} failed: ${p.stderr}`);
    };
    stopStarted = () => {
      Bun.spawnSync(["bash", join(SCRIPTS, "down"), "--purge"], { env });
      rmSync(state, { recursive: true, force: true });
    };
    await run("up");
    return {
      brokers: [`127.0.0.1:${env.KAFKA_PORT}`],
      external: false,
      stop: () => run("down"),
      start: () => run("up"),
      async restart() {
        await run("down");
        await run("up");
      },
    };
  })();
  return started;
}

/** The brokers of the test Kafka. */
export async function testKafkaBrokers(): Promise<string[]> {
  return (await testKafka()).brokers;
}

/** Every message in `topic` (all partitions, from the start), read until the count matches the log end offsets. */
export async function readTopic(kafka: Kafka, topic: string): Promise<KafkaMessage[]> {
  const admin = kafka.admin();
  await admin.connect();
  const total = (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  await admin.disconnect();
  const seen: KafkaMessage[] = [];
  const reader = kafka.consumer({ groupId: `reader-${randomUUID()}` });
  await reader.connect();
  try {
    await reader.subscribe({ topic, fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => void seen.push(message) });
    await until(`${total} messages read from ${topic}`, async () => (seen.length >= total ? true : undefined)).catch((err: Error) => {
      throw new Error(`${err.message} (read ${seen.length})`);
    });
    return seen;
  } finally {
    await reader.disconnect();
  }
}
