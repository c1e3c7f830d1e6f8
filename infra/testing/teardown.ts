/**
 * Preloaded by `bun test` (bunfig.toml): stops the shared test engines and the
 * private Kafka broker after the last test. bun test runs no process exit hooks,
 * so without this every run would leave a Postgres and a JVM behind.
 */
import { afterAll } from "bun:test";
import { stopTestEngines } from "./engines";
import { stopTestKafka } from "./kafka";

afterAll(async () => {
  stopTestKafka();
  await stopTestEngines();
});
