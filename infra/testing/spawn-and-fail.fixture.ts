/**
 * Not a test of its own: processes.test.ts runs it with `bun test` as a separate test run.
 * It starts a long-lived child the way integration tests start services, records the
 * child's pid, then fails (FIXTURE_MODE=throw, as a missing fixture does) or hangs until the
 * test process is killed (FIXTURE_MODE=hang).
 */
import { test } from "bun:test";
import { existsSync } from "node:fs";
import { spawnChild } from "./processes";
import { until } from "./wait";

test("starts a child, then fails", async () => {
  const pidFile = process.env.FIXTURE_PID_FILE!;
  spawnChild([process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`]);
  await until("the child's pid", async () => (existsSync(pidFile) ? true : undefined));
  if (process.env.FIXTURE_MODE === "hang") await new Promise(() => {});
  throw new Error("deliberate failure after starting a child (as with a missing fixture)");
});
