import { afterAll, describe, expect, test } from "bun:test";
import { diffAddresses, webhookUpdate } from "./address-sync";
import { startAddressSyncRunner } from "./address-sync-runner";
import { createWebhookApi, HeliusApiError, type HeliusWebhook } from "./webhook-api";
import { startHeliusApiTestDouble } from "../../infra/testing/helius-api-double";
import { createLogger } from "../../infra/log";
import { until } from "../../infra/testing/wait";

const KEY = "helius-test-key-0123456789";
const fast = { retries: 3, minDelayMs: 1, maxDelayMs: 5 };

describe("diffAddresses", () => {
  test("compares as sets: order and repeats do not count", () => {
    expect(diffAddresses(["b", "a", "a"], ["a", "b"])).toEqual({ added: [], removed: [] });
    expect(diffAddresses([], [])).toEqual({ added: [], removed: [] });
  });
  test("names what is added and removed, sorted", () => {
    expect(diffAddresses(["a", "z", "m"], ["c", "a", "b"])).toEqual({ added: ["b", "c"], removed: ["m", "z"] });
    expect(diffAddresses([], ["y", "x"])).toEqual({ added: ["x", "y"], removed: [] });
    expect(diffAddresses(["x"], [])).toEqual({ added: [], removed: ["x"] });
  });
});

describe("webhookUpdate", () => {
  test("keeps every editable field as read (auth header included), drops what Helius sets, replaces the addresses", () => {
    const current = {
      webhookID: "w1",
      wallet: "owner",
      active: true,
      webhookURL: "https://agents.example/v1/ingest/helius",
      webhookType: "raw",
      transactionTypes: ["ANY"],
      accountAddresses: ["old"],
      authHeader: "secret-header",
      txnStatus: "success",
      encoding: "json",
      somethingNew: { kept: 1 },
    } as HeliusWebhook;
    expect(webhookUpdate(current, ["a", "b"])).toEqual({
      webhookURL: "https://agents.example/v1/ingest/helius",
      webhookType: "raw",
      transactionTypes: ["ANY"],
      accountAddresses: ["a", "b"],
      authHeader: "secret-header",
      txnStatus: "success",
      encoding: "json",
      somethingNew: { kept: 1 },
    });
  });
});

describe("webhook API client against the loopback test double", () => {
  const hook = { webhookID: "wh-1", wallet: "owner", webhookURL: "https://x.example/hook", transactionTypes: ["ANY"], accountAddresses: ["a"], webhookType: "raw", authHeader: "h" };
  const double = startHeliusApiTestDouble({ apiKey: KEY, webhooks: [hook] });
  afterAll(() => double.stop());

  test("GET and PUT reach /v0/webhooks/{id} with the api key in the query string", async () => {
    const api = createWebhookApi({ baseUrl: double.url + "/", apiKey: KEY, retry: fast });
    expect((await api.get("wh-1")).accountAddresses).toEqual(["a"]);
    const put = await api.put("wh-1", webhookUpdate(await api.get("wh-1"), ["b"]));
    expect(put.accountAddresses).toEqual(["b"]);
    expect(double.requests.slice(-3).map((r) => [r.method, r.path, r.apiKey])).toEqual([
      ["GET", "/v0/webhooks/wh-1", KEY],
      ["GET", "/v0/webhooks/wh-1", KEY],
      ["PUT", "/v0/webhooks/wh-1", KEY],
    ]);
  });

  test("a wrong key is a 401 that is not retried and whose message names the setting, never the key", async () => {
    const wrong = "wrong-key-that-must-not-leak";
    const before = double.requests.length;
    const retried: number[] = [];
    const err = await createWebhookApi({ baseUrl: double.url, apiKey: wrong, retry: fast, onRetry: (_m, attempt) => retried.push(attempt) }).get("wh-1").catch((e) => e);
    expect(retried).toEqual([]);
    expect(err).toBeInstanceOf(HeliusApiError);
    expect(err.status).toBe(401);
    expect(err.message).toContain("HELIUS_API_KEY");
    expect(err.message).not.toContain(wrong);
    expect(double.requests.length - before).toBe(1);
  });

  test("an unknown webhook is a 404 naming HELIUS_WEBHOOK_ID, not retried", async () => {
    const before = double.requests.length;
    const err = await createWebhookApi({ baseUrl: double.url, apiKey: KEY, retry: fast }).get("nope").catch((e) => e);
    expect(err.status).toBe(404);
    expect(err.message).toContain("HELIUS_WEBHOOK_ID");
    expect(double.requests.length - before).toBe(1);
  });

  test("429 and 5xx are retried with backoff until Helius answers", async () => {
    const before = double.requests.length;
    const retried: number[] = [];
    double.failNext(503, 429);
    const api = createWebhookApi({ baseUrl: double.url, apiKey: KEY, retry: fast, onRetry: (_m, attempt) => retried.push(attempt) });
    expect((await api.get("wh-1")).webhookID).toBe("wh-1");
    expect(double.requests.length - before).toBe(3);
    expect(retried).toEqual([1, 2]);
  });

  test("an unreachable host fails after the retries, without the key in the message", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const err = await createWebhookApi({ baseUrl: url, apiKey: KEY, retry: { retries: 1, minDelayMs: 1, maxDelayMs: 1 } }).get("wh-1").catch((e) => e);
    expect(err).toBeInstanceOf(HeliusApiError);
    expect(err.status).toBeNull();
    expect(err.message).toContain("unreachable");
    expect(err.message).not.toContain(KEY);
  });
});

describe("address sync runner", () => {
  const quiet = createLogger("error");
  const result = { webhookId: "w", changed: false, total: 0, added: [], removed: [] };

  test("a burst of requests is one sync; a request during a sync is exactly one more; failures never escape", async () => {
    let calls = 0;
    let release: (() => void) | null = null;
    let fail = false;
    const runner = startAddressSyncRunner({
      log: quiet,
      debounceMs: 20,
      periodMs: 3_600_000,
      sync: async () => {
        calls++;
        await new Promise<void>((r) => (release = r));
        if (fail) throw new Error("helius down");
        return result;
      },
    });
    try {
      // the start request, then a burst inside the debounce window: one sync
      runner.request("a");
      runner.request("b");
      await until("the first sync to start", async () => (release ? true : undefined), 5_000);
      expect(calls).toBe(1);
      // requests while it runs: one more run after it, not three
      runner.request("c");
      runner.request("d");
      runner.request("e");
      fail = true;
      release!();
      release = null;
      await until("the follow-up sync to start", async () => (release ? true : undefined), 5_000);
      expect(calls).toBe(2);
      release!();
      await runner.idle();
      expect(calls).toBe(2);
      expect(runner.runs).toBe(2);
    } finally {
      await runner.stop();
    }
  });

  test("the periodic sync runs by itself; stop ends it", async () => {
    let calls = 0;
    const runner = startAddressSyncRunner({ log: quiet, debounceMs: 1, periodMs: 30, sync: async () => (calls++, result) });
    try {
      await until("three syncs (start, then periodic)", async () => (calls >= 3 ? true : undefined), 5_000);
    } finally {
      await runner.stop();
    }
    const after = calls;
    runner.request("after stop");
    await runner.idle();
    expect(calls).toBe(after);
  });
});
