/**
 * A real Kafka broker for integration tests: `infra/kafka/up` (idempotent; the
 * first run fetches the jars with Maven) on KAFKA_TEST_PORT (default 9092), or
 * the brokers in KAFKA_BROKERS when those are given.
 */
import { join } from "node:path";

let started: Promise<string[]> | null = null;

export function testKafkaBrokers(): Promise<string[]> {
  started ??= (async () => {
    if (process.env.KAFKA_BROKERS) return process.env.KAFKA_BROKERS.split(",");
    const port = process.env.KAFKA_TEST_PORT ?? "9092";
    const up = Bun.spawn(["bash", join(import.meta.dir, "..", "kafka", "up")], {
      env: { ...process.env, KAFKA_PORT: port },
      stdout: "pipe",
      stderr: "pipe",
    });
    const code = await up.exited;
    if (code !== 0) throw new Error(`infra/kafka/up failed (${code}): ${await new Response(up.stderr).text()}`);
    return [`127.0.0.1:${port}`];
  })();
  return started;
}
