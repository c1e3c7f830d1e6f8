/**
 * `npm run webhook -- show|sync` as a real process, against a fresh database (DATABASE_URL)
 * and Helius's webhook API played by a loopback test double.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { testEngines } from "../../infra/testing/engines";
import { connectSql } from "../../infra/postgres";
import { startHeliusApiTestDouble } from "../../infra/testing/helius-api-double";
import { launchFixtureAccounts, startRpcTestDouble } from "../../infra/testing/rpc-double";
import { fixturePoolConfig } from "../../compose/testing/platform";

const ROOT = join(import.meta.dir, "..", "..");
const KEY = "helius-cli-test-key-777";
const AUTH = "auth-header-that-stays-secret-123";
const LAUNCH = "LaunchConfig1111111111111111111111111111111";
const LEGACY = "LegacyConfig1111111111111111111111111111111";
const TREASURY = "TreasuryWa11et2222222222222222222222222222";
const DAMM = "DammPoo1Graduated33333333333333333333333333";
// both configs carry the real mainnet PoolConfig bytes: its fee claimer is the rest of the treasury
const FEE_CLAIMER = fixturePoolConfig().fee_claimer.toBase58();

const running = new Set<ReturnType<typeof Bun.spawn>>();
afterAll(() => {
  for (const proc of running) proc.kill("SIGKILL");
});

async function webhook(args: string[], env: Record<string, string>, viaScript = false) {
  const argv = viaScript ? [process.execPath, "run", "webhook", ...args] : [process.execPath, "ingest/webhook/main.ts", ...args];
  const proc = Bun.spawn(argv, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "warn", DATABASE_URL: "", HELIUS_API_KEY: "", HELIUS_WEBHOOK_ID: "", ...env }, stdout: "pipe", stderr: "pipe" });
  running.add(proc);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code };
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
    running.delete(proc);
  }
}

describe("webhook CLI", () => {
  const double = startHeliusApiTestDouble({
    apiKey: KEY,
    webhooks: [
      {
        webhookID: "wh-cli",
        wallet: "OwnerWa11et",
        webhookURL: "https://agents.example/v1/ingest/helius",
        transactionTypes: ["ANY"],
        accountAddresses: [LAUNCH, "StaleAddress1111111111111111111111111111111"],
        webhookType: "enhanced",
        authHeader: AUTH,
        active: true,
      },
    ],
  });
  afterAll(() => double.stop());
  const rpc = startRpcTestDouble(launchFixtureAccounts([LAUNCH, LEGACY]));
  afterAll(() => rpc.stop());

  test("show prints the webhook without its auth header; sync prints what changed, then nothing; bad usage and missing keys exit 2", async () => {
    const engines = await testEngines();
    const database = `webhook_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
    await engines.sql.unsafe(`CREATE DATABASE ${database}`);
    const url = engines.pgUrl.replace(/\/postgres$/, `/${database}`);
    const env = {
      DATABASE_URL: url,
      HELIUS_API_KEY: KEY,
      HELIUS_WEBHOOK_ID: "wh-cli",
      HELIUS_API_URL: double.url,
      PLATFORM_CONFIGS: `launch:${LAUNCH},legacy:${LEGACY}`,
      TREASURY_ADDRESS: TREASURY,
      SOLANA_RPC_URL: rpc.url,
    };
    const sql = connectSql(url, 2);
    try {
      const help = await webhook(["--help"], env, true);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("npm run webhook -- sync");

      for (const bad of [[], ["frobnicate"], ["show", "extra"], ["sync", "--force"]]) {
        const r = await webhook(bad, env);
        expect({ bad, code: r.code }).toEqual({ bad, code: 2 });
        expect(r.stderr).toContain("usage:");
      }
      const noKey = await webhook(["show"], { ...env, HELIUS_API_KEY: "" });
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain("HELIUS_API_KEY is not set");
      const noId = await webhook(["sync"], { ...env, HELIUS_WEBHOOK_ID: "" });
      expect(noId.code).toBe(2);
      expect(noId.stderr).toContain("HELIUS_WEBHOOK_ID is not set");
      const noConfigs = await webhook(["sync"], { ...env, PLATFORM_CONFIGS: "" });
      expect(noConfigs.code).toBe(2);
      expect(noConfigs.stderr).toContain("PLATFORM_CONFIGS is not set");
      const noRpc = await webhook(["sync"], { ...env, SOLANA_RPC_URL: "" });
      expect(noRpc.code).toBe(2);
      expect(noRpc.stderr).toContain("SOLANA_RPC_URL is not set");

      const shown = await webhook(["show"], env);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^url +https:\/\/agents\.example\/v1\/ingest\/helius$/m);
      expect(shown.stdout).toMatch(/^type +enhanced$/m);
      expect(shown.stdout).toMatch(/^auth header +set \(not shown\)$/m);
      expect(shown.stdout).toContain(`addresses (2):\n  ${LAUNCH}\n  StaleAddress1111111111111111111111111111111\n`);
      expect(shown.stdout + shown.stderr).not.toContain(AUTH);
      expect(shown.stdout + shown.stderr).not.toContain(KEY);

      // first sync: the legacy config and the treasury (TREASURY_ADDRESS, the configs' fee claimer) in, the stale address out
      const first = await webhook(["sync"], env);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain("webhook wh-cli: added 3, removed 1, now 4 addresses");
      const added = [LEGACY, TREASURY, FEE_CLAIMER].sort().map((a) => `  + ${a}\n`).join("");
      expect(first.stdout).toContain(`${added}  - StaleAddress1111111111111111111111111111111`);
      expect(double.webhook("wh-cli")).toMatchObject({ accountAddresses: [LAUNCH, LEGACY, TREASURY, FEE_CLAIMER].sort(), authHeader: AUTH, webhookType: "enhanced" });

      // a coin of the launch config graduated (the CLI migrated the fresh database)
      await sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${DAMM}, 'SomeMint', 'damm_v2', ${LAUNCH})`;
      const second = await webhook(["sync"], env);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain(`webhook wh-cli: added 1, removed 0, now 5 addresses\n  + ${DAMM}`);

      const puts = double.puts().length;
      const third = await webhook(["sync"], env);
      expect(third.code).toBe(0);
      expect(third.stdout).toContain("webhook wh-cli: already in sync (5 addresses)");
      expect(double.puts().length).toBe(puts);

      // a refused key: exit 1, the status said, the key not
      const refused = await webhook(["show"], { ...env, HELIUS_API_KEY: "another-key-not-to-print" });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("Helius answered 401");
      expect(refused.stdout + refused.stderr).not.toContain("another-key-not-to-print");
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
