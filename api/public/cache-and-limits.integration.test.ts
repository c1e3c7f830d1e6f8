import { describe, expect, test, beforeAll } from "bun:test";
import { fixturePlatform, fixtureRegistry, overNetwork, FIXTURE_MINT as MINT } from "../../compose/testing/data-api";
import { testPlatform } from "../../compose/testing/platform";

describe("Data API cache keys, cached 404s and the per-client limit", () => {
  beforeAll(async () => {
    await fixturePlatform();
  });

  test("unknown query parameters are ignored and share the cache entry of the request without them", async () => {
    const p = await testPlatform(fixtureRegistry(), { responseCache: true });
    const [original] = await p.engines.sql`SELECT description FROM agents WHERE mint = ${MINT}`;
    const description = (path: string) => p.call(path).then((r) => (r.body.items as any[]).find((a) => a.mint === MINT)?.description);
    try {
      expect(await description(`/v1/public/agents?q=${MINT}&junk=1`)).toBe(original!.description);
      await p.engines.sql`UPDATE agents SET description = 'changed under the cache' WHERE mint = ${MINT}`;
      // same parsed request: the cached answer, whatever the junk or the order of parameters
      for (const path of [`/v1/public/agents?q=${MINT}`, `/v1/public/agents?junk=2&q=${MINT}`, `/v1/public/agents?q=${MINT}&limit=20&sort=new&utm_source=x`])
        expect(await description(path), path).toBe(original!.description);
      // a different request is a different entry
      expect(await description(`/v1/public/agents?q=${MINT}&limit=19`)).toBe("changed under the cache");
    } finally {
      await p.engines.sql`UPDATE agents SET description = ${original!.description} WHERE mint = ${MINT}`;
    }
  });

  test("kinds in another order or repeated are the same feed and the same entry", async () => {
    const p = await testPlatform(fixtureRegistry(), { responseCache: true });
    const [original] = await p.engines.sql`SELECT name FROM agents WHERE mint = ${MINT}`;
    try {
      const a = await p.call(`/v1/public/agents/${MINT}/activity?kinds=trade,launch`);
      await p.engines.sql`UPDATE agents SET name = 'renamed under the cache' WHERE mint = ${MINT}`;
      const b = await p.call(`/v1/public/agents/${MINT}/activity?kinds=launch,trade,launch`);
      expect(b.body.items[0].agent.name).not.toBe("renamed under the cache");
      expect(b.body).toEqual(a.body);
    } finally {
      await p.engines.sql`UPDATE agents SET name = ${original!.name} WHERE mint = ${MINT}`;
    }
  });

  test("a 404 is cached briefly and says so", async () => {
    const p = await testPlatform(fixtureRegistry(), { responseCache: true });
    await p.engines.sql`UPDATE agents SET hidden = true WHERE mint = ${MINT}`;
    try {
      const hidden = await p.call(`/v1/public/agents/${MINT}/trades`);
      expect(hidden.status).toBe(404);
      expect(hidden.headers.get("cache-control")).toBe("public, max-age=3");
      await p.engines.sql`UPDATE agents SET hidden = false WHERE mint = ${MINT}`;
      const again = await p.call(`/v1/public/agents/${MINT}/trades?junk=1`);
      expect({ status: again.status, code: again.body.error?.code }).toEqual({ status: 404, code: "NOT_FOUND" }); // from the cache
    } finally {
      await p.engines.sql`UPDATE agents SET hidden = false WHERE mint = ${MINT}`;
    }
  });

  test("the crafted cursor of the report is a 400, not a 500", async () => {
    const p = await testPlatform(fixtureRegistry());
    const r = await p.call("/v1/public/agents?cursor=eyJsIjoiYWdlbnRzOm5ldyIsInAiOlsieCIsInkiXX0");
    expect({ status: r.status, code: r.body.error?.code }).toEqual({ status: 400, code: "VALIDATION_ERROR" });
  });

  test("a client over its budget gets 429 RATE_LIMITED with Retry-After and CORS; others are not affected", async () => {
    await overNetwork({ env: { DATA_API_RATE_PER_MINUTE: "6", DATA_API_RATE_BURST: "3" } }, async (get) => {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await get("/v1/public/stats")).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await get("/v1/public/configs");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeWithin(1, 11); // 6 a minute: the next token within 10 s
      expect(refused.headers.get("access-control-allow-origin")).toBe("*");
      expect(((await refused.json()) as any).error.code).toBe("RATE_LIMITED");
      // X-Forwarded-For is not believed from a peer that is not a trusted proxy
      expect((await get("/v1/public/stats", { "x-forwarded-for": "203.0.113.9" })).status).toBe(429);
      expect((await get("/healthz")).status).toBe(200); // the limit is the Data API's
    });
  });

  test("behind a trusted proxy each forwarded client has its own budget", async () => {
    await overNetwork({ env: { DATA_API_RATE_PER_MINUTE: "6", DATA_API_RATE_BURST: "1", DATA_API_TRUSTED_PROXIES: "127.0.0.1" } }, async (get) => {
      const as = (client: string) => get("/v1/public/stats", { "x-forwarded-for": `6.6.6.6, ${client}` }).then((r) => r.status);
      expect(await as("203.0.113.9")).toBe(200);
      expect(await as("203.0.113.9")).toBe(429);
      expect(await as("203.0.113.10")).toBe(200);
    });
  });
});
