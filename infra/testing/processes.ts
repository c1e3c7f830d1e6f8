/**
 * Child processes of tests, stopped whatever the outcome: a test stops its own in a
 * `finally` (stopChild); anything still alive when the test process ends is stopped by
 * the global teardown (stopAllChildren, from teardown.ts); and on Linux each child gets
 * SIGTERM from the kernel if the test process dies without a teardown (killed, crashed),
 * through util-linux's `setpriv --pdeathsig`. SIGTERM, not SIGKILL, so a service child
 * still stops the embedded Postgres it started.
 */
import type { Subprocess } from "bun";

export type Child = Subprocess<"ignore" | "pipe" | "inherit", "pipe", "pipe">;

const live = new Set<Child>();
const setpriv = process.platform === "linux" ? Bun.which("setpriv") : null;

/** Bun.spawn with stdout and stderr piped, registered for the teardown. */
export function spawnChild(argv: string[], opts: { cwd?: string; env?: Record<string, string | undefined>; stdin?: "ignore" | "pipe" } = {}): Child {
  const cmd = setpriv ? [setpriv, "--pdeathsig", "TERM", "--", ...argv] : argv;
  const proc = Bun.spawn(cmd, { cwd: opts.cwd, env: opts.env, stdin: opts.stdin ?? "ignore", stdout: "pipe", stderr: "pipe" }) as Child;
  live.add(proc);
  void proc.exited.then(() => live.delete(proc));
  return proc;
}

/** Sends `signal`, waits up to `graceMs` for the exit, then SIGKILL; the exit code (null if killed). */
export async function stopChild(proc: Child, signal: NodeJS.Signals = "SIGTERM", graceMs = 15_000): Promise<number | null> {
  if (proc.exitCode === null && proc.signalCode === null) {
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
    await proc.exited.finally(() => clearTimeout(timer));
  }
  return proc.exitCode;
}

/** What a child printed (stdout then stderr), once it has exited. */
export async function printed(proc: Child): Promise<string> {
  await proc.exited;
  return `${await new Response(proc.stdout).text()}${await new Response(proc.stderr).text()}`;
}

/** Runs a command to its end (a CLI): stopped if it outlives `timeoutMs` or the test is torn down. */
export async function runChild(argv: string[], opts: Parameters<typeof spawnChild>[1] = {}, timeoutMs = 120_000): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const proc = spawnChild(argv, opts);
  const timer = setTimeout(() => void stopChild(proc, "SIGTERM", 5_000), timeoutMs);
  try {
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code: proc.exitCode };
  } finally {
    clearTimeout(timer);
    await stopChild(proc);
  }
}

/** Stops every child still running (the global test teardown). */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((proc) => stopChild(proc, "SIGTERM", 5_000)));
}
