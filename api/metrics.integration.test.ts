import { describe, expect, test } from "bun:test";
import { testPlatform } from "../compose/testing/platform";
import { until } from "../infra/testing/wait";
import { fixturePlatform, fixtureRegistry, overNetwork, FIXTURE_MINT as MINT } from "../compose/testing/data-api";

const TOKEN = "metrics-token-0123456789";

/** The value of one sample line of the Prometheus text, or undefined. */
const sample = (text: string, name: string, labels: Record<string, string> = {}) =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .find((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    ?.split(" ")
    .at(-1);

describe("/metrics", () => {
  test("latency histograms per route template, of sink writes and of consumer batches, beside the counters", async () => {
    const p = await fixturePlatform();
    expect((await p.call(`/v1/public/agents/${MINT}`)).status).toBe(200);
    expect((await p.call("/v1/public/agents/So11111111111111111111111111111111111111112")).status).toBe(404);
    expect((await p.call("/v1/public/agents?limit=0")).status).toBe(400);
    // a request is observed once its answer has gone out (onAfterResponse): wait for the last one
    const text = await until("the 400 to be observed", async () => {
      const res = await p.call("/metrics");
      expect(res.status).toBe(200);
      return sample(res.body, "acp_http_request_duration_seconds_count", { route: "/v1/public/agents", status: "400" }) ? (res.body as string) : undefined;
    });
    // one series per route template, not per mint
    expect(Number(sample(text, "acp_http_request_duration_seconds_count", { route: "/v1/public/agents/:mint", method: "GET", status: "200" }))).toBe(1);
    expect(Number(sample(text, "acp_http_request_duration_seconds_count", { route: "/v1/public/agents/:mint", method: "GET", status: "404" }))).toBe(1);
    expect(Number(sample(text, "acp_http_request_duration_seconds_count", { route: "/v1/public/agents", method: "GET", status: "400" }))).toBe(1);
    expect(Number(sample(text, "acp_http_request_duration_seconds_count", { route: "/v1/ingest/helius", method: "POST", status: "200" }))).toBe(1);
    expect(text).not.toContain(MINT);
    expect(sample(text, "acp_http_request_duration_seconds_bucket", { route: "/v1/public/agents/:mint", le: "+Inf", status: "200" })).toBe("1");
    expect(Number(sample(text, "acp_sink_write_duration_seconds_count"))).toBeGreaterThanOrEqual(1);
    expect(text).toContain("# TYPE acp_consumer_batch_duration_seconds histogram");
    // the counters keep their names, labels and types
    expect(text).toContain("# TYPE acp_transactions_total counter");
    expect(Number(sample(text, "acp_transactions_total", { status: "decoded" }))).toBeGreaterThanOrEqual(1);
    expect(Number(sample(text, "acp_batches_total"))).toBeGreaterThanOrEqual(1);
  });

  test("each platform has its own registry", async () => {
    const a = await testPlatform(fixtureRegistry());
    const b = await testPlatform(fixtureRegistry());
    await a.call("/healthz");
    await until("a's /healthz to be observed", async () => sample((await a.call("/metrics")).body, "acp_http_request_duration_seconds_count", { route: "/healthz" }));
    expect(sample((await b.call("/metrics")).body, "acp_http_request_duration_seconds_count", { route: "/healthz" })).toBeUndefined();
  });

  test("without METRICS_TOKEN only loopback clients read it, and not through a proxy", async () => {
    await overNetwork({}, async (path) => {
      const get = (headers?: Record<string, string>) => path("/metrics", headers);
      const local = await get();
      expect(local.status).toBe(200);
      expect(local.headers.get("content-type")).toStartWith("text/plain");
      const proxied = await get({ "x-forwarded-for": "203.0.113.9" });
      expect(proxied.status).toBe(403);
      expect(((await proxied.json()) as any).error.message).toContain("METRICS_TOKEN");
    });
  });

  test("with METRICS_TOKEN the bearer token is required", async () => {
    await overNetwork({ env: { METRICS_TOKEN: TOKEN } }, async (path) => {
      const get = (headers?: Record<string, string>) => path("/metrics", headers);
      expect((await get()).status).toBe(401);
      expect((await get({ authorization: "Bearer wrong-token-0123456789" })).status).toBe(401);
      const ok = await get({ authorization: `Bearer ${TOKEN}`, "x-forwarded-for": "203.0.113.9" });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("acp_http_request_duration_seconds");
    });
  });
});
