import { describe, expect, test, beforeAll } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { testPlatform, registryWith, FIXTURES } from "../../compose/testing/platform";
import { DEFAULT_ACTIVITY_KINDS } from "./model";

// Its own config and mints: the fixtures are re-keyed so this file does not share rows with others.
const CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
const STOCK = "StockCfg11111111111111111111111111111111111";
const LEGACY = "LegacyCfg1111111111111111111111111111111111";
const MINT = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const load = (name: string) => JSON.parse(readFileSync(`${FIXTURES}helius-devnet/${name}`, "utf8"));

let p: Awaited<ReturnType<typeof testPlatform>>;

describe("Data API /v1/public", () => {
  beforeAll(async () => {
    p = await testPlatform(
      registryWith([
        { role: "legacy", address: LEGACY },
        { role: "stock", address: STOCK, ticker: "TSLA" },
        { role: "launch", address: CONFIG },
      ]),
    );
    const res = await p.postWebhook(readdirSync(`${FIXTURES}helius-devnet`).map(load));
    expect(res.status).toBe(200);
  });

  test("agents list: shape, default sort, cache and CORS headers", async () => {
    const res = await p.call("/v1/public/agents");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=5");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const item = res.body.items.find((a: any) => a.mint === MINT);
    expect(item).toBeDefined();
    expect(item.links).toBeNull();
    expect(Object.keys(item).sort()).toEqual(
      ["agentUrl", "budget", "category", "coinName", "createdAt", "creator", "description", "imageUrl", "lastAction", "links", "market", "mint", "name", "role", "state", "status", "symbol"].sort(),
    );
    expect(Object.keys(item.market).sort()).toEqual(
      ["change24hPct", "graduated", "holders", "lastTradeAt", "marketCapSol", "marketCapUsd", "pool", "priceQuote", "priceSol", "priceUsd", "progressPct", "quote", "volume24hSol", "volume24hUsd"].sort(),
    );
    expect(item.market.quote).toEqual({ kind: "sol", mint: "So11111111111111111111111111111111111111112", symbol: "SOL", decimals: 9, uiMultiplier: 1 });
    expect(typeof item.market.marketCapSol).toBe("string");
    expect(item.market.marketCapSol).toMatch(/^\d+(\.\d+)?$/);
    // the fixture trades are from 2025: no volume in the last 24 h, and the coin is older than 24 h
    expect(item.market.volume24hSol).toBe("0");
    expect(item.market.lastTradeAt).toBe("2025-10-17T10:13:07.000Z");
    expect(item.market.priceUsd).toBeCloseTo(item.market.priceSol * 150, 12);
  });

  test("every sort, category, q and limit answers; nextCursor is null on the last page", async () => {
    for (const sort of ["new", "marketcap", "trending", "volume"]) {
      const res = await p.call(`/v1/public/agents?sort=${sort}&limit=50`);
      expect(res.status).toBe(200);
      expect(res.body.nextCursor).toBeNull();
      expect(res.body.items.some((a: any) => a.mint === MINT)).toBe(true);
    }
    expect((await p.call("/v1/public/agents?category=community&q=fafo")).body.items.map((a: any) => a.mint)).toEqual([MINT]);
    expect((await p.call("/v1/public/agents?q=find%20out")).body.items.map((a: any) => a.mint)).toEqual([MINT]);
    expect((await p.call(`/v1/public/agents?q=${MINT}`)).body.items.map((a: any) => a.mint)).toEqual([MINT]);
    expect((await p.call("/v1/public/agents?category=stocks&q=fafo")).body.items).toEqual([]);
  });

  test("out-of-range queries get 400 VALIDATION_ERROR listing every problem", async () => {
    const res = await p.call(`/v1/public/agents?sort=hot&limit=0&category=memes&q=${"x".repeat(65)}&cursor=zzz`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    const fields = res.body.error.details.map((d: any) => d.field).sort();
    expect(fields).toEqual(["category", "limit", "q", "sort"]);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    for (const path of [
      "/v1/public/agents?limit=51",
      "/v1/public/agents?limit=abc",
      "/v1/public/agents?cursor=not-a-cursor",
      `/v1/public/agents/${MINT}/trades?limit=101`,
      `/v1/public/agents/${MINT}/trades?limit=0`,
      `/v1/public/agents/${MINT}/activity?limit=51`,
      `/v1/public/agents/${MINT}/activity?kinds=launch,nonsense`,
      "/v1/public/activity?kinds=",
      "/v1/public/agents/not-a-mint",
    ]) {
      const r = await p.call(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error.code, path).toBe("VALIDATION_ERROR");
      expect(Array.isArray(r.body.error.details), path).toBe(true);
    }
  });

  test("unknown agents get 404 NOT_FOUND on every per-agent endpoint", async () => {
    const unknown = "So11111111111111111111111111111111111111112";
    for (const suffix of ["", "/trades", "/activity"]) {
      const r = await p.call(`/v1/public/agents/${unknown}${suffix}`);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
  });

  test("a hidden agent's trades and activity are 404 too", async () => {
    await p.engines.sql`UPDATE agents SET hidden = true WHERE mint = ${MINT}`;
    try {
      for (const suffix of ["/trades", "/activity", "/activity?kinds=trade"]) {
        const r = await p.call(`/v1/public/agents/${MINT}${suffix}`);
        expect({ suffix, status: r.status, code: r.body.error?.code }).toEqual({ suffix, status: 404, code: "NOT_FOUND" });
      }
    } finally {
      await p.engines.sql`UPDATE agents SET hidden = false WHERE mint = ${MINT}`;
    }
  });

  test("a hidden agent is left out of the global activity feed too", async () => {
    const path = `/v1/public/activity?kinds=launch,trade&limit=50`;
    expect((await p.call(path)).body.items.some((i: any) => i.mint === MINT)).toBe(true);
    await p.engines.sql`UPDATE agents SET hidden = true WHERE mint = ${MINT}`;
    try {
      const r = await p.call(path); // this platform runs without the response cache
      expect(r.status).toBe(200);
      expect(r.body.items.filter((i: any) => i.mint === MINT)).toEqual([]);
    } finally {
      await p.engines.sql`UPDATE agents SET hidden = false WHERE mint = ${MINT}`;
    }
  });

  test("trades paginate newest first with opaque cursors and the page cache times", async () => {
    const first = await p.call(`/v1/public/agents/${MINT}/trades?limit=1`);
    expect(first.headers.get("cache-control")).toBe("public, max-age=2");
    expect(first.body.items).toHaveLength(1);
    const seen = [first.body.items[0].signature];
    let cursor = first.body.nextCursor;
    while (cursor) {
      const next = await p.call(`/v1/public/agents/${MINT}/trades?limit=1&cursor=${cursor}`);
      expect(next.headers.get("cache-control")).toBe("public, max-age=60");
      seen.push(...next.body.items.map((t: any) => t.signature));
      cursor = next.body.nextCursor;
    }
    const all = (await p.call(`/v1/public/agents/${MINT}/trades?limit=100`)).body.items.map((t: any) => t.signature);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
    // a cursor of another list is refused
    const other = await p.call(`/v1/public/agents?cursor=${first.body.nextCursor}`);
    expect(other.status).toBe(400);
  });

  test("activity: default excludes trades; kinds=trade includes them; global feed works", async () => {
    const def = await p.call(`/v1/public/agents/${MINT}/activity`);
    expect(def.headers.get("cache-control")).toBe("public, max-age=3");
    expect(def.body.items.every((i: any) => i.kind !== "trade" && i.kind !== "thinking")).toBe(true);
    const trades = (await p.call(`/v1/public/agents/${MINT}/activity?kinds=trade`)).body;
    expect(trades.items.length).toBeGreaterThan(0);
    const t = trades.items[0];
    expect(t.kind).toBe("trade");
    expect(t.agent).toEqual({ name: "Fuck Around Find Out", symbol: "FAFO", imageUrl: "", category: "community" });
    expect(t.links.signature).toBeString();
    expect(typeof t.data.lamports).toBe("string");
    const global = await p.call("/v1/public/activity?kinds=launch");
    expect(global.status).toBe(200);
    expect(global.body.items.some((i: any) => i.mint === MINT && i.kind === "launch")).toBe(true);
  });

  test("activity pages, one item at a time, join into the single page (stored kinds and trades mixed, per agent and global)", async () => {
    const kinds = [...DEFAULT_ACTIVITY_KINDS, "trade"].join(",");
    for (const path of [`/v1/public/agents/${MINT}/activity?kinds=${kinds}`, `/v1/public/activity?kinds=${kinds}`]) {
      const whole = (await p.call(`${path}&limit=50`)).body.items.map((i: any) => i.id);
      expect(whole.length).toBeGreaterThan(3);
      // trades and stored kinds (this coin's; the newest page of every coin belongs to whichever test file wrote last)
      if (path.includes(MINT)) expect(new Set(whole.map((id: string) => id.split(":")[0])).size).toBeGreaterThan(1);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await p.call(`${path}&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
        expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
        const page: any = res.body;
        paged.push(...page.items.map((i: any) => i.id));
        cursor = page.nextCursor;
      } while (cursor && paged.length <= whole.length);
      expect(paged.slice(0, whole.length)).toEqual(whole);
    }
  });

  test("an item written twice (a publisher's retry after a crash) is listed once until the engine merges the copies", async () => {
    const id = `post:${MINT}:written-twice-${Date.now()}`;
    const row = { mint: MINT, at: Date.now() + 60_000, id, kind: "post", text: "once", body: null, data: "{}", links: "{}" };
    await p.engines.ch.insert("activity", [row]);
    await p.engines.ch.insert("activity", [row]);
    try {
      const copies = await p.engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM activity WHERE mint = {m:String} AND id = {id:String}", { m: MINT, id });
      expect(copies[0]!.n).toBe("2"); // not merged yet: both copies are stored
      for (const path of [`/v1/public/agents/${MINT}/activity?kinds=post&limit=5`, `/v1/public/activity?kinds=post&limit=5`, `/v1/daemons/${MINT}/feed?kinds=post&limit=5`])
        expect({ path, ids: (await p.call(path)).body.items.map((i: any) => i.id).filter((x: string) => x === id) }).toEqual({ path, ids: [id] });
    } finally {
      // the fixture coin is shared with other test files in this process: they count its items
      await p.engines.ch.command("ALTER TABLE activity DELETE WHERE mint = {m:String} AND id = {id:String} SETTINGS mutations_sync = 2", { m: MINT, id });
    }
  });

  test("stats", async () => {
    const res = await p.call("/v1/public/stats");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=15");
    expect(res.body.agents.total).toBeGreaterThanOrEqual(1);
    expect(typeof res.body.volume24hSol).toBe("string");
    expect(typeof res.body.marketCapSol).toBe("string");
    expect(res.body.solUsd).toBe(150);
    expect(Number.isNaN(Date.parse(res.body.at))).toBe(false);
  });

  test("price/sol answers from the source, and 503 when none answers", async () => {
    const ok = await p.call("/v1/public/price/sol");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("public, max-age=3");
    expect(ok.body).toEqual({ usd: 150, conf: null, publishTime: "2026-01-01T00:00:00.000Z", source: "exchange" });
    const none = await testPlatform(registryWith([]), { solUsd: null });
    const down = await none.call("/v1/public/price/sol");
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBeString();
  });

  test("configs: cluster, programs, launchConfig and items ordered launch, stock, legacy with every field", async () => {
    const res = await p.call("/v1/public/configs");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    expect(res.body.cluster).toBe("devnet");
    expect(res.body.programs).toEqual({ dbc: "dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN", dammV2: "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG" });
    expect(res.body.launchConfig).toBe(CONFIG);
    expect(res.body.items.map((c: any) => c.role)).toEqual(["launch", "stock", "legacy"]);
    const c = res.body.items[0];
    // values of the real mainnet PoolConfig fixture
    expect(c).toMatchObject({
      address: CONFIG,
      acceptsLaunches: true,
      quote: { kind: "sol", mint: "So11111111111111111111111111111111111111112", symbol: "SOL", decimals: 9, ticker: null },
      feeBps: 200,
      dynamicFee: false,
      feeSplit: { creatorPct: 0, platformPct: 100 },
      token: { decimals: 6, program: "spl-token", supply: "1000000000" },
      migration: { quoteThreshold: "100", target: "damm-v2", poolFeeBps: 200, lockedLiquidityPct: 100 },
      feeClaimer: "2VuxXtec8Gpcu49y8VZ4yYutbi98WWtRC6Zvvs8APVy1",
    });
    expect(c.startMarketCap.quote).toMatch(/^\d+(\.\d+)?$/);
    expect(c.startMarketCap.usd).toBeCloseTo(Number(c.startMarketCap.quote) * 150, 6);
    expect(Number(c.graduationMarketCap.quote)).toBeGreaterThan(Number(c.startMarketCap.quote));
    expect(res.body.items[2].acceptsLaunches).toBe(false);
  });

  test("CORS preflight is allowed from any origin", async () => {
    const res = await p.call("/v1/public/agents", { method: "OPTIONS", headers: { origin: "https://dash.example", "access-control-request-method": "GET" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("GET");
  });

  test("health and readiness", async () => {
    expect((await p.call("/healthz")).body).toEqual({ ok: true });
    expect((await p.call("/readyz")).body).toEqual({ ready: true });
  });
});
