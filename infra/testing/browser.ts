/**
 * Test helper: a headless Chromium from the machine's own packages (Debian's `chromium`, which
 * `.ci/run` installs), never a downloaded browser. It runs as a child process of the test
 * (processes.ts: stopped by `stop()`, by the global teardown, or by the kernel when the test
 * process dies) and is driven over the DevTools protocol with puppeteer-core.
 * `CHROMIUM_PATH` names another binary (default /usr/bin/chromium).
 */
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";
import { spawnChild, stopChild } from "./processes";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** Why no browser can start here, or null when the binary is there and executable. */
export function chromiumMissing(path = CHROMIUM_PATH): string | null {
  try {
    accessSync(path, constants.X_OK);
    return null;
  } catch {
    return `no Chromium at ${path}: this test drives a real browser. Install Debian's package (apt-get install -y chromium; .ci/run does it) or set CHROMIUM_PATH to a Chromium or Chrome binary`;
  }
}

export type TestBrowser = { browser: Browser; stop(): Promise<void> };

/** Starts headless Chromium on a fresh profile and connects to it; throws a clear message when it cannot. */
export async function startBrowser(opts: { path?: string; width?: number; height?: number; timeoutMs?: number } = {}): Promise<TestBrowser> {
  const path = opts.path ?? CHROMIUM_PATH;
  const missing = chromiumMissing(path);
  if (missing) throw new Error(missing);
  const profile = mkdtempSync(join(tmpdir(), "acp-chromium-"));
  const child = spawnChild([
    path,
    "--headless",
    "--no-sandbox", // tests run as root in CI, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    `--user-data-dir=${profile}`,
    "about:blank",
  ]);
  const stop = async () => {
    await stopChild(child, "SIGTERM", 5_000);
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const endpoint = await devToolsEndpoint(child.stderr, child.exited, opts.timeoutMs ?? 30_000);
    const browser = await puppeteer.connect({ browserWSEndpoint: endpoint, defaultViewport: { width: opts.width ?? 1280, height: opts.height ?? 900 } });
    return {
      browser,
      async stop() {
        await browser.close().catch(() => {});
        await stop();
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Reads Chromium's stderr up to "DevTools listening on ws://…", then keeps draining it (a full pipe would stall the browser). */
async function devToolsEndpoint(stderr: ReadableStream<Uint8Array>, exited: Promise<number>, timeoutMs: number): Promise<string> {
  const reader = stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const found = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`chromium ended before it listened:\n${seen.slice(-2000)}`);
      seen += decoder.decode(value, { stream: true });
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m) return m[1]!;
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // every branch resolves (none rejects later, unheard, once another has won)
  const outcome = await Promise.race([
    found.then(
      (endpoint) => ({ endpoint }),
      (error: Error) => ({ error }),
    ),
    exited.then((code) => ({ error: new Error(`chromium exited with ${code} before it listened:\n${seen.slice(-2000)}`) })),
    new Promise<{ error: Error }>((resolve) => (timer = setTimeout(() => resolve({ error: new Error(`chromium did not listen within ${timeoutMs} ms:\n${seen.slice(-2000)}`) }), timeoutMs))),
  ]);
  clearTimeout(timer);
  if ("error" in outcome) throw outcome.error;
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  return outcome.endpoint;
}
