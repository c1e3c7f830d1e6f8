/**
 * Starts the ClickHouse HTTP test double (clickhouse-http-double.ts) in its own process
 * (chDB allows one data directory per process, and the test process may hold another)
 * on a fresh temporary data directory, and tears both down on stop().
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnChild, stopChild } from "./processes";

export type ClickhouseHttpDouble = {
  url: string;
  /** test-only controls of the double: answer the next `times` requests with `status`/`body` */
  failNext(times: number, status: number, body: string): Promise<void>;
  /** reset the connection of the next `times` requests, before or after executing them */
  dropNext(times: number, when?: "before" | "after"): Promise<void>;
  stop(): Promise<void>;
};

export async function startClickhouseHttpDouble(): Promise<ClickhouseHttpDouble> {
  const dir = mkdtempSync(join(tmpdir(), "acp-ch-double-"));
  chmodSync(dir, 0o755);
  const proc = spawnChild([process.execPath, join(import.meta.dir, "clickhouse-http-double.ts"), join(dir, "clickhouse")]);
  const cleanup = async () => {
    await stopChild(proc);
    rmSync(dir, { recursive: true, force: true });
  };
  // the double's stderr (chDB and Bun diagnostics) explains a failed start
  const stderr = new Response(proc.stderr).text();
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("clickhouse-http-double did not start within 30 s")), 30_000);
      void proc.exited.then(async (code) => reject(new Error(`clickhouse-http-double exited with ${code}: ${await stderr}`)));
      void (async () => {
        const reader = proc.stdout.getReader();
        const decoder = new TextDecoder();
        let out = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          out += decoder.decode(value, { stream: true });
          const m = /listening (\d+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            return resolve(Number(m[1]));
          }
        }
      })();
    });
  } catch (err) {
    await cleanup();
    throw err;
  }

  const url = `http://127.0.0.1:${port}`;
  const control = async (path: string, body?: string) => {
    const res = await fetch(url + path, { method: "POST", body });
    if (!res.ok) throw new Error(`clickhouse-http-double control ${path}: ${res.status} ${await res.text()}`);
  };
  return {
    url,
    failNext: (times, status, body) => control(`/__double/fail?times=${times}&status=${status}`, body),
    dropNext: (times, when = "before") => control(`/__double/drop?times=${times}&when=${when}`),
    stop: cleanup,
  };
}
