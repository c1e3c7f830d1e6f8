import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runChild, spawnChild, stopChild } from "./processes";
import { until } from "./wait";

// A test that fails (or a test process that is killed) after starting a child process must
// not leave that child running: spawn-and-fail.fixture.ts is run as its own `bun test`.
const ROOT = join(import.meta.dir, "..", "..");
const FIXTURE = "./infra/testing/spawn-and-fail.fixture.ts";

/** Running, and not a zombie waiting for a parent that will not reap it. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function withPidFile(fn: (pidFile: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-spawn-"));
    try {
      await fn(join(dir, "child.pid"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

describe.skipIf(process.platform !== "linux")("child processes of tests", () => {
  test(
    "a test that fails after starting a child: the run fails and the child is stopped",
    withPidFile(async (pidFile) => {
      const run = await runChild([process.execPath, "test", FIXTURE], { cwd: ROOT, env: { ...process.env, FIXTURE_PID_FILE: pidFile, FIXTURE_MODE: "throw" } });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("deliberate failure");
      const pid = Number(readFileSync(pidFile, "utf8"));
      expect(pid).toBeGreaterThan(0);
      await until("the child gone", async () => (alive(pid) ? undefined : true), 10_000);
    }),
    60_000,
  );

  test(
    "a test process killed outright (no teardown): the kernel stops its child",
    withPidFile(async (pidFile) => {
      const run = spawnChild([process.execPath, "test", FIXTURE], { cwd: ROOT, env: { ...process.env, FIXTURE_PID_FILE: pidFile, FIXTURE_MODE: "hang" } });
      try {
        await until("the child's pid", async () => (existsSync(pidFile) && readFileSync(pidFile, "utf8") ? true : undefined), 30_000);
        const pid = Number(readFileSync(pidFile, "utf8"));
        expect(alive(pid)).toBe(true);
        await stopChild(run, "SIGKILL");
        await until("the child gone", async () => (alive(pid) ? undefined : true), 10_000);
      } finally {
        await stopChild(run, "SIGKILL");
      }
    }),
    60_000,
  );
});
