/**
 * Preloaded by `bun test` (bunfig.toml): stops child processes still running, the
 * shared test engines and the private Kafka broker after the last test. bun test runs no process exit hooks,
 * so without this every run would leave a Postgres and a JVM behind.
 */
import { afterAll } from "bun:test";
import { stopTestEngines } from "./engines";
import { stopTestKafka } from "./kafka";
import { stopAllChildren } from "./processes";

afterAll(async () => {
  await stopAllChildren(); // child processes a failed test left running (before the engines they may use)
  stopTestKafka();
  await stopTestEngines();
}, 60_000); // stopping a broker under load can take longer than the default 5 s hook limit, which would cut this short
