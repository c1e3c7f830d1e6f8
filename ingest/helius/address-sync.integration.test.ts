/**
 * The Helius webhook's address list follows the platform: the all-in-one platform on real
 * engines, fed simulated transactions through the real webhook route, with Helius's
 * webhook API played by a loopback test double.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { testPlatform } from "../../compose/testing/platform";
import { startHeliusApiTestDouble } from "../../infra/testing/helius-api-double";
import { testEngines } from "../../infra/testing/engines";
import { until } from "../../infra/testing/wait";
import { createSimulator, fixtureSimConfigs } from "../simulator";
import { simulatedConfigRegistry } from "../simulator/platform-configs";
import { treasuryAddresses } from "../contract/configs";
import { HELIUS_MAX_ADDRESSES, syncWebhookAddresses } from "./address-sync";
import { createWebhookApi } from "./webhook-api";

const SEED = 62; // graduates a first coin within 700 transactions, a second within 1,700
const KEY = "helius-integration-key-42";
const TREASURY = "TreasuryWa11et1111111111111111111111111111";
const AUTH = "the-header-helius-echoes-0123456789";

describe("Helius webhook address sync", () => {
  const double = startHeliusApiTestDouble({
    apiKey: KEY,
    webhooks: [
      {
        webhookID: "wh-platform",
        wallet: "OwnerWa11et",
        webhookURL: "https://agents.example/v1/ingest/helius",
        transactionTypes: ["ANY"],
        accountAddresses: ["StaleAddress1111111111111111111111111111111"],
        webhookType: "raw",
        authHeader: AUTH,
        txnStatus: "success",
        active: true,
      },
    ],
  });
  afterAll(() => double.stop());

  test("configs, graduated pools and the treasury (TREASURY_ADDRESS and the configs' fee claimers): synced at start, after each graduation, and not re-sent when unchanged", async () => {
    const simConfigs = fixtureSimConfigs(SEED);
    const configs = simulatedConfigRegistry(simConfigs);
    const configAddresses = configs.all.map((c) => c.address);
    // the fee claimer the configs' PoolConfig accounts name (all share the fixture's bytes)
    const feeClaimers = [...new Set(simConfigs.map((c) => (c.poolConfig as { fee_claimer: { toBase58(): string } }).fee_claimer.toBase58()))];
    expect(feeClaimers.length).toBeGreaterThan(0);
    expect(feeClaimers).not.toContain(TREASURY);
    const treasury = [TREASURY, ...feeClaimers];
    const p = await testPlatform(configs, {
      env: { HELIUS_API_KEY: KEY, HELIUS_WEBHOOK_ID: "wh-platform", HELIUS_API_URL: double.url, TREASURY_ADDRESS: TREASURY },
    });
    const runner = p.addressSync!;
    try {
      expect(runner).not.toBeNull();
      const addresses = () => double.webhook("wh-platform")!.accountAddresses;

      // start: the configs and the treasury replace what was there; every other field kept
      await until("the start sync", async () => (double.puts().length === 1 ? true : undefined));
      expect(double.puts()[0]!.body.accountAddresses).toEqual([...configAddresses, ...treasury].sort());
      expect(double.webhook("wh-platform")).toMatchObject({ webhookURL: "https://agents.example/v1/ingest/helius", transactionTypes: ["ANY"], webhookType: "raw", authHeader: AUTH, txnStatus: "success" });

      // a coin graduates: its DAMM v2 pool is added by itself
      const sim = createSimulator({ seed: SEED, configs: simConfigs, pools: 3, initialPools: 3 });
      const post = async (count: number) => {
        for (let i = 0; i < count; i += 100) expect((await p.postWebhook(sim.next(100))).status).toBe(200);
      };
      await post(700);
      const graduated = () => sim.state().pools.flatMap((pool) => (pool.dammPool ? [pool.dammPool] : []));
      expect(graduated().length).toBe(1);
      await until("the graduated pool on the webhook", async () => (addresses().includes(graduated()[0]!) ? true : undefined));
      expect(double.puts().at(-1)!.body.accountAddresses).toEqual([...configAddresses, ...treasury, ...graduated()].sort());
      expect(double.puts().length).toBe(2);
      expect(double.webhook("wh-platform")!.authHeader).toBe(AUTH);

      // nothing new: a sync reads, compares and PUTs nothing
      await runner.idle();
      const runs = runner.runs;
      runner.request("test: once more");
      await until("one more sync", async () => (runner.runs > runs ? true : undefined));
      expect(double.puts().length).toBe(2);
      const again = await syncWebhookAddresses({ sql: p.engines.sql, api: createWebhookApi({ baseUrl: double.url, apiKey: KEY }), webhookId: "wh-platform", configs: configAddresses, treasury: treasuryAddresses(configs, TREASURY) });
      expect(again).toMatchObject({ changed: false, added: [], removed: [], total: configAddresses.length + treasury.length + 1 });
      expect(double.puts().length).toBe(2);

      // a second graduation: synced again, automatically
      await post(1000);
      expect(graduated().length).toBe(2);
      await until("the second graduated pool on the webhook", async () => (addresses().includes(graduated()[1]!) ? true : undefined));
      expect([...addresses()].sort()).toEqual([...configAddresses, ...treasury, ...graduated()].sort());
      expect(double.puts().length).toBe(3);
      expect(double.requests.every((r) => r.apiKey === KEY)).toBe(true);
    } finally {
      await runner?.stop();
      await p.decoder.close();
    }
  });

  test("refuses, before any call to Helius, more addresses than a webhook holds, and an empty config list", async () => {
    const engines = await testEngines();
    const api = createWebhookApi({ baseUrl: double.url, apiKey: KEY });
    const before = double.requests.length;
    const many = Array.from({ length: HELIUS_MAX_ADDRESSES + 1 }, (_, i) => `Config${String(i).padStart(38, "0")}`);
    await expect(syncWebhookAddresses({ sql: engines.sql, api, webhookId: "wh-platform", configs: many, treasury: [] })).rejects.toThrow(
      /would need 100001 addresses, more than Helius allows on one webhook \(100000\); nothing was changed/,
    );
    await expect(syncWebhookAddresses({ sql: engines.sql, api, webhookId: "wh-platform", configs: [], treasury: [TREASURY] })).rejects.toThrow(/PLATFORM_CONFIGS is empty/);
    expect(double.requests.length).toBe(before);
  });
});
