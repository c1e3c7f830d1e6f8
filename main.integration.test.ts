import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./infra/net";
import { until } from "./infra/testing/wait";

// The quick start as a user runs it: `bun main.ts` with no chain configured, then Ctrl-C, then again.


describe("npm start (all-in-one, embedded engines, simulator)", () => {
  test("boots, serves live simulated data, stops cleanly on SIGINT and reuses its data", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "acp-main-"));
    chmodSync(dataDir, 0o755);
    const port = await freePort();
    const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), SIMULATOR_TPS: "40", LOG_LEVEL: "info", SOLANA_RPC_URL: "", DATABASE_URL: "", CLICKHOUSE_URL: "" };
    const base = `http://127.0.0.1:${port}`;
    const start = () => Bun.spawn([process.execPath, "main.ts"], { cwd: import.meta.dir, env, stdout: "pipe", stderr: "pipe" });
    try {
      const first = start();
      await until("readiness", async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const stats = await until("simulated trades", async () => {
        const s: any = await (await fetch(`${base}/v1/public/stats`)).json();
        return s.trades24h > 0 && s.agents.total > 0 ? s : undefined;
      });
      first.kill("SIGINT");
      const firstCode = await first.exited;
      if (firstCode !== 0) console.error(await new Response(first.stdout).text(), await new Response(first.stderr).text());
      expect(firstCode).toBe(0);
      const firstLog = await new Response(first.stdout).text();
      expect(firstLog).toContain("the simulator plays a platform through the webhook");
      expect(firstLog).toContain('"msg":"stopped"');

      const second = start();
      await until("readiness after restart", async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
      const again: any = await (await fetch(`${base}/v1/public/stats`)).json();
      expect(again.agents.total).toBeGreaterThanOrEqual(stats.agents.total);
      expect(again.trades24h).toBeGreaterThanOrEqual(stats.trades24h);
      second.kill("SIGTERM");
      const code = await second.exited;
      if (code !== 0) console.error(await new Response(second.stdout).text(), await new Response(second.stderr).text());
      expect(code).toBe(0);
      const secondLog = await new Response(second.stdout).text();
      expect(secondLog).toContain("simulator resumed");
      expect(secondLog).not.toContain("clickhouse migrations applied"); // already applied: idempotent start
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
