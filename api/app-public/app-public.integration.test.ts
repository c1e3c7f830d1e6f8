/**
 * The Application API's public reads against real engines: the devnet fixtures (one coin
 * through curve, graduation and DAMM v2) and two days of simulated traffic. Shapes are
 * checked field by field against the spec ("Coin", "Feed item", "SOL price"), `market`
 * against the Data API's, candles against a ledger the test computes from the raw trades.
 */
import { describe, expect, test, beforeAll } from "bun:test";
import { fixturePlatform, fixtureRegistry, overNetwork, FIXTURE_MINT as MINT } from "../../compose/testing/data-api";
import { testPlatform } from "../../compose/testing/platform";
import { createSimulator, fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { formatUnits } from "../../ingest/contract/market-math";
import { INTERVALS } from "./model";
import { recordedSolPrices } from "../../infra/sol-price/history";

const UNKNOWN = "So11111111111111111111111111111111111111112";
const COIN_KEYS = ["agent", "createdAt", "creator", "description", "holders", "imageUrl", "market", "mint", "name", "pool", "symbol"];
const FEED_KEYS = ["agent", "at", "body", "data", "id", "kind", "links", "mint"];
const CANDLE_KEYS = ["close", "closeUsd", "high", "highUsd", "low", "lowUsd", "open", "openUsd", "time", "trades", "volumeSol", "volumeUsd"];

type Platform = Awaited<ReturnType<typeof testPlatform>>;

/** Every page of a list, following nextCursor; checks the later pages' cache time. */
async function allPages(p: Platform, path: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  const sep = path.includes("?") ? "&" : "?";
  do {
    const res = await p.call(`${path}${cursor ? `${sep}cursor=${cursor}` : ""}`);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    if (cursor) expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
  } while (cursor && items.length < 10_000);
  return items;
}

/** Candles computed from the raw trades: first and last in chain order, exact lamports. */
async function ledgerCandles(p: Platform, mint: string, step: number) {
  const trades = await p.engines.ch.query<{ t: number; slot: string; ix: number; inner: number; h: string; price: number; lamports: string }>(
    `SELECT toUnixTimestamp(at) AS t, toString(slot) AS slot, ix, inner, toString(bitAnd(cityHash64(signature), 4294967295)) AS h,
            price_sol AS price, toString(amount_quote) AS lamports FROM trades WHERE mint = {mint:String}`,
    { mint },
  );
  const key = (x: (typeof trades)[number]) => [BigInt(x.slot), BigInt(x.ix), BigInt(x.inner + 1), BigInt(x.h)];
  const before = (a: bigint[], b: bigint[]) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
    return false;
  };
  // the SOL price of each minute: the last recorded at or before it (null before the first)
  const prices = (await p.engines.ch.query<{ m: number; usd: number }>("SELECT toUnixTimestamp(minute) AS m, usd FROM sol_price_1m FINAL ORDER BY minute")).map((r) => ({ m: Number(r.m), usd: r.usd }));
  const priceAt = (minute: number) => prices.findLast((r) => r.m <= minute)?.usd ?? null;
  type Minute = { high: number; low: number; lamports: bigint };
  const buckets = new Map<number, { first: bigint[]; last: bigint[]; open: number; close: number; high: number; low: number; lamports: bigint; trades: number; openMinute: number; closeMinute: number; minutes: Map<number, Minute> }>();
  for (const x of trades) {
    const t = Math.floor(Number(x.t) / step) * step;
    const minute = Math.floor(Number(x.t) / 60) * 60;
    const k = key(x);
    const b = buckets.get(t);
    if (!b) {
      const minutes = new Map([[minute, { high: x.price, low: x.price, lamports: BigInt(x.lamports) }]]);
      buckets.set(t, { first: k, last: k, open: x.price, close: x.price, high: x.price, low: x.price, lamports: BigInt(x.lamports), trades: 1, openMinute: minute, closeMinute: minute, minutes });
      continue;
    }
    if (before(k, b.first)) (b.first = k), (b.open = x.price), (b.openMinute = minute);
    if (before(b.last, k)) (b.last = k), (b.close = x.price), (b.closeMinute = minute);
    b.high = Math.max(b.high, x.price);
    b.low = Math.min(b.low, x.price);
    b.lamports += BigInt(x.lamports);
    b.trades++;
    const m = b.minutes.get(minute);
    if (!m) b.minutes.set(minute, { high: x.price, low: x.price, lamports: BigInt(x.lamports) });
    else (m.high = Math.max(m.high, x.price)), (m.low = Math.min(m.low, x.price)), (m.lamports += BigInt(x.lamports));
  }
  // USD: each SOL value times the price of its own minute; null when a minute of the candle has no price
  const usd = (b: typeof buckets extends Map<number, infer B> ? B : never) => {
    const ms = [...b.minutes.entries()].map(([m, v]) => ({ ...v, usd: priceAt(m) }));
    if (ms.some((m) => m.usd === null)) return { openUsd: null, highUsd: null, lowUsd: null, closeUsd: null, volumeUsd: null };
    return {
      openUsd: b.open * priceAt(b.openMinute)!,
      highUsd: Math.max(...ms.map((m) => m.high * m.usd!)),
      lowUsd: Math.min(...ms.map((m) => m.low * m.usd!)),
      closeUsd: b.close * priceAt(b.closeMinute)!,
      volumeUsd: ms.reduce((sum, m) => sum + Number(m.lamports) * m.usd!, 0) / 1e9,
    };
  };
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, b]) => ({ time: new Date(t * 1000).toISOString(), open: b.open, high: b.high, low: b.low, close: b.close, volumeSol: formatUnits(b.lamports, 9), trades: b.trades, ...usd(b) }));
}

const lamports = (sol: string) => {
  const [whole, frac = ""] = sol.split(".");
  return BigInt(whole! + frac.padEnd(9, "0"));
};

/** Every candle of a coin from `since`, paged forward with `from` (1,000 at most per call). */
async function apiCandles(p: Platform, mint: string, interval: string, since: number, until: number) {
  const step = INTERVALS[interval as keyof typeof INTERVALS];
  const out: any[] = [];
  for (let from = Math.floor(since / step) * step; from < until; from += 1000 * step) {
    const res = await p.call(`/v1/tokens/${mint}/candles?interval=${interval}&from=${new Date(from * 1000).toISOString()}`);
    expect({ interval, from, status: res.status }).toEqual({ interval, from, status: 200 });
    expect(res.body.mint).toBe(mint);
    expect(res.body.interval).toBe(interval);
    out.push(...res.body.items);
  }
  return out;
}

describe("Application API public reads on the devnet fixtures", () => {
  let p: Platform;
  beforeAll(async () => {
    p = await fixturePlatform();
  });

  test("a coin: every field of the spec's Coin, market equal to the Data API agent's", async () => {
    await p.holders.flush();
    const list = await p.call("/v1/tokens?limit=50");
    expect(list.status).toBe(200);
    expect(list.headers.get("cache-control")).toBe("public, max-age=5");
    expect(list.headers.get("access-control-allow-origin")).toBe("*");
    expect(Object.keys(list.body).sort()).toEqual(["items", "nextCursor"]);
    const coin = list.body.items.find((c: any) => c.mint === MINT);
    expect(Object.keys(coin).sort()).toEqual(COIN_KEYS);
    const agent = (await p.call(`/v1/public/agents/${MINT}`)).body;
    const [reg] = await p.engines.sql`SELECT dbc_pool, template, presence FROM agents WHERE mint = ${MINT}`;
    expect(coin).toEqual({
      mint: MINT,
      name: agent.coinName,
      symbol: agent.symbol,
      imageUrl: agent.imageUrl,
      description: agent.description,
      creator: agent.creator,
      pool: reg!.dbc_pool,
      createdAt: agent.createdAt,
      market: agent.market,
      // the fixtures' one wallet 5awo… keeps a positive balance (bought 322281812767019 and
      // 98989904042605 atoms, sold 322281812000000 and 1000000000); the pool vaults are no holders
      holders: 1,
      agent: { name: "", template: agent.role, presence: "quiet", traits: [] },
    });
    expect(agent.market.holders).toBeNull();
    expect(coin.name).toBe("Fuck Around Find Out");
    expect(coin.market.graduated).toBe(true);
    expect(coin.market.pool).not.toBe(coin.pool); // trades on DAMM v2 now; launched on the curve
    const one = await p.call(`/v1/tokens/${MINT}`);
    expect(one.status).toBe(200);
    expect(one.headers.get("cache-control")).toBe("public, max-age=5");
    expect(one.body).toEqual(coin);
  });

  test("agent: the operator's name, template, presence and traits; null while the agent is forming", async () => {
    const [before] = await p.engines.sql`SELECT name, template, presence, traits, state FROM agents WHERE mint = ${MINT}`;
    try {
      await p.engines.sql`UPDATE agents SET name = 'Oracle of Fafo', template = 'trader', presence = 'influencer', traits = ${p.engines.sql.json(["bold", "dry"])} WHERE mint = ${MINT}`;
      expect((await p.call(`/v1/tokens/${MINT}`)).body.agent).toEqual({ name: "Oracle of Fafo", template: "trader", presence: "influencer", traits: ["bold", "dry"] });
      await p.engines.sql`UPDATE agents SET state = 'forming' WHERE mint = ${MINT}`;
      expect((await p.call(`/v1/tokens/${MINT}`)).body.agent).toBeNull();
    } finally {
      await p.engines.sql`UPDATE agents SET name = ${before!.name}, template = ${before!.template}, presence = ${before!.presence},
        traits = ${p.engines.sql.json(before!.traits)}, state = ${before!.state} WHERE mint = ${MINT}`;
    }
  });

  test("sorts and q", async () => {
    for (const sort of ["new", "marketcap", "trending"]) {
      const res = await p.call(`/v1/tokens?sort=${sort}&limit=50`);
      expect(res.status).toBe(200);
      expect(res.body.items.some((c: any) => c.mint === MINT)).toBe(true);
    }
    for (const q of ["fafo", "FIND%20OUT", MINT]) expect((await p.call(`/v1/tokens?q=${q}`)).body.items.map((c: any) => c.mint)).toEqual([MINT]);
    expect((await p.call("/v1/tokens?q=nothing-like-it")).body).toEqual({ items: [], nextCursor: null });
  });

  test("trades: the Data API's trades, newest first, cursors round-trip", async () => {
    const first = await p.call(`/v1/tokens/${MINT}/trades?limit=1`);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("public, max-age=2");
    const paged = await allPages(p, `/v1/tokens/${MINT}/trades?limit=1`);
    const whole = (await p.call(`/v1/tokens/${MINT}/trades?limit=100`)).body;
    expect(whole.nextCursor).toBeNull();
    expect(paged).toEqual(whole.items);
    expect(whole.items).toEqual((await p.call(`/v1/public/agents/${MINT}/trades?limit=100`)).body.items);
    expect(whole.items.length).toBe(4); // curve buy and sell, DAMM v2 buy and sell
    const slots = whole.items.map((t: any) => t.slot);
    expect([...slots].sort((a, b) => b - a)).toEqual(slots);
  });

  test("candles: one series across graduation, reconciled with the trades", async () => {
    const ledger = await ledgerCandles(p, MINT, 60);
    expect(ledger.reduce((n, c) => n + c.trades, 0)).toBe(4);
    const first = Date.parse(ledger[0]!.time) / 1000;
    const last = Date.parse(ledger.at(-1)!.time) / 1000 + 60;
    for (const [interval, step] of Object.entries(INTERVALS)) {
      const got = await apiCandles(p, MINT, interval, first - 86400, last + 86400);
      for (const c of got) expect(Object.keys(c).sort()).toEqual(CANDLE_KEYS);
      expect({ interval, candles: got }).toEqual({ interval, candles: await ledgerCandles(p, MINT, step) });
    }
    // both ends given, a closed window: kept a minute
    const closed = await p.call(`/v1/tokens/${MINT}/candles?interval=1d&from=${new Date((first - 86400) * 1000).toISOString()}&to=${new Date(last * 1000).toISOString()}`);
    expect(closed.headers.get("cache-control")).toBe("public, max-age=60");
    expect(Object.keys(closed.body).sort()).toEqual(["interval", "items", "mint"]);
    expect(closed.body.items).toEqual(await ledgerCandles(p, MINT, 86400));
    // the default window ends now: the 2025 trades are older than 1,000 hours
    const now = await p.call(`/v1/tokens/${MINT}/candles`);
    expect(now.body).toEqual({ mint: MINT, interval: "1h", items: [] });
    expect(now.headers.get("cache-control")).toBe("public, max-age=2");
    // only `to`: the 1,000 candles before it
    const to = new Date(last * 1000).toISOString();
    expect((await p.call(`/v1/tokens/${MINT}/candles?interval=1d&to=${to}`)).body.items).toEqual(await ledgerCandles(p, MINT, 86400));
  });

  test("price/sol: the Data API's answer, cached 3 s; 503 when no source answers", async () => {
    const res = await p.call("/v1/price/sol");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.body).toEqual({ usd: 150, conf: null, publishTime: "2026-01-01T00:00:00.000Z", source: "exchange" });
    expect(res.body).toEqual((await p.call("/v1/public/price/sol")).body);
    const none = await testPlatform(fixtureRegistry(), { solUsd: null });
    const down = await none.call("/v1/price/sol");
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe("PRICE_UNAVAILABLE");
    expect(down.headers.get("retry-after")).toBe("3");
    expect(down.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("feed: the spec's feed item, launches and trades from chain facts, thinking only when asked", async () => {
    const res = await p.call(`/v1/daemons/${MINT}/feed?limit=50`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3");
    const items = res.body.items;
    expect(items.map((i: any) => i.kind).sort()).toEqual(["launch", "trade", "trade", "trade", "trade"]);
    const [reg] = await p.engines.sql`SELECT template, presence, symbol, image_url FROM agents WHERE mint = ${MINT}`;
    for (const i of items) {
      expect(Object.keys(i).sort()).toEqual(FEED_KEYS);
      expect(i.mint).toBe(MINT);
      expect(i.agent).toEqual({ name: "Fuck Around Find Out", symbol: reg!.symbol, imageUrl: reg!.image_url, template: reg!.template, presence: reg!.presence });
      expect(Number.isNaN(Date.parse(i.at))).toBe(false);
    }
    const trade = items.find((i: any) => i.kind === "trade");
    expect(trade.body).toBeNull();
    expect(Object.keys(trade.data).sort()).toEqual(["atoms", "lamports", "side", "trader"]);
    expect(trade.data.lamports).toMatch(/^\d+$/);
    expect(trade.links.signature).toBeString();
    // the Data API's activity items say the same of the same facts
    const activity = (await p.call(`/v1/public/agents/${MINT}/activity?kinds=launch,trade&limit=50`)).body.items;
    expect(items.map((i: any) => [i.id, i.kind, i.at, i.data, i.links])).toEqual(activity.map((i: any) => [i.id, i.kind, i.at, i.data, i.links]));
    // newest first
    const keys = items.map((i: any) => [Date.parse(i.at), i.id]);
    for (let k = 1; k < keys.length; k++) expect(keys[k - 1][0] > keys[k][0] || (keys[k - 1][0] === keys[k][0] && keys[k - 1][1] > keys[k][1])).toBe(true);
    // kinds filter; thinking only when asked (none stored here)
    expect((await p.call(`/v1/daemons/${MINT}/feed?kinds=launch`)).body.items.map((i: any) => i.kind)).toEqual(["launch"]);
    expect((await p.call(`/v1/daemons/${MINT}/feed?kinds=thinking`)).body).toEqual({ items: [], nextCursor: null });
    // the global feed and cursors, one item at a time
    // (other test files' coins may share these engines: page through the whole global feed)
    const global = (await allPages(p, "/v1/feed?limit=50")).filter((i: any) => i.mint === MINT);
    expect(global).toEqual(items);
    expect(await allPages(p, `/v1/daemons/${MINT}/feed?limit=1`)).toEqual(items);
  });

  test("thinking items are stored kinds: shown only when asked for", async () => {
    const id = `thinking:test:${Date.now()}`;
    await p.engines.ch.insert("activity", [{ mint: MINT, at: Date.now(), id, kind: "thinking", text: "weighing a buyback", body: "raw reasoning", data: "{}", links: "{}" }]);
    expect((await p.call(`/v1/daemons/${MINT}/feed?limit=50`)).body.items.some((i: any) => i.id === id)).toBe(false);
    const asked = (await p.call(`/v1/daemons/${MINT}/feed?kinds=thinking,launch`)).body.items;
    expect(asked[0]).toMatchObject({ id, kind: "thinking", mint: MINT, body: "raw reasoning", data: {}, links: {} });
  });

  test("a hidden agent's coin is absent from lists and 404 everywhere (cached 3 s)", async () => {
    await p.engines.sql`UPDATE agents SET hidden = true WHERE mint = ${MINT}`;
    try {
      expect((await p.call(`/v1/tokens?q=${MINT}`)).body.items).toEqual([]);
      expect((await allPages(p, "/v1/feed?limit=50&kinds=launch,trade")).filter((i: any) => i.mint === MINT)).toEqual([]);
      for (const path of [`/v1/tokens/${MINT}`, `/v1/tokens/${MINT}/trades`, `/v1/tokens/${MINT}/candles`, `/v1/daemons/${MINT}/feed`]) {
        const r = await p.call(path);
        expect({ path, status: r.status, code: r.body.error?.code }).toEqual({ path, status: 404, code: "NOT_FOUND" });
        expect(r.headers.get("cache-control")).toBe("public, max-age=3");
        expect(r.headers.get("access-control-allow-origin")).toBe("*");
      }
    } finally {
      await p.engines.sql`UPDATE agents SET hidden = false WHERE mint = ${MINT}`;
    }
    for (const path of [`/v1/tokens/${UNKNOWN}`, `/v1/tokens/${UNKNOWN}/trades`, `/v1/tokens/${UNKNOWN}/candles`, `/v1/daemons/${UNKNOWN}/feed`]) {
      const r = await p.call(path);
      expect({ path, status: r.status, code: r.body.error?.code }).toEqual({ path, status: 404, code: "NOT_FOUND" });
    }
  });

  test("every validation error, all problems of a query at once, with CORS", async () => {
    const cases: [string, string[]][] = [
      [`/v1/tokens?sort=volume&limit=0&q=${"x".repeat(65)}&cursor=${"c".repeat(513)}`, ["cursor", "limit", "q", "sort"]],
      ["/v1/tokens?limit=51", ["limit"]],
      ["/v1/tokens?limit=abc", ["limit"]],
      ["/v1/tokens?q=%20", ["q"]],
      ["/v1/tokens?cursor=not-a-cursor", ["cursor"]],
      ["/v1/tokens/not-a-mint", ["mint"]],
      [`/v1/tokens/${MINT}/trades?limit=101&cursor=zzz`, ["limit"]],
      [`/v1/tokens/${MINT}/trades?cursor=zzz`, ["cursor"]],
      ["/v1/tokens/0OIl/trades", ["mint"]],
      [`/v1/tokens/${MINT}/candles?interval=2m&from=yesterday&to=2026-13-45T00:00:00Z`, ["from", "interval", "to"]],
      [`/v1/tokens/${MINT}/candles?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`, ["from"]],
      [`/v1/tokens/${MINT}/candles?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`, ["from"]],
      [`/v1/tokens/${MINT}/candles?interval=1m&from=2026-01-01T00:00:00Z&to=2026-01-01T16:41:00Z`, ["to"]],
      [`/v1/tokens/${MINT}/candles?from=1969-12-31T00:00:00Z`, ["from"]],
      [`/v1/tokens/${MINT}/candles?to=2100-01-02`, ["to"]],
      ["/v1/tokens/not-a-mint/candles?interval=1w", ["interval", "mint"]],
      ["/v1/feed?kinds=launch,forecast&limit=51&cursor=x", ["kinds", "limit"]],
      ["/v1/feed?kinds=", ["kinds"]],
      ["/v1/feed?limit=0", ["limit"]],
      ["/v1/feed?cursor=x", ["cursor"]],
      [`/v1/daemons/${MINT}/feed?kinds=video`, ["kinds"]],
      ["/v1/daemons/not-a-mint/feed", ["mint"]],
    ];
    for (const [path, fields] of cases) {
      const r = await p.call(path);
      expect({ path, status: r.status, code: r.body.error?.code }).toEqual({ path, status: 400, code: "VALIDATION_ERROR" });
      expect({ path, fields: [...new Set(r.body.error.details.map((d: any) => d.field))].sort() }).toEqual({ path, fields });
      for (const d of r.body.error.details) expect(d.message).toBeString();
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
    }
    // exactly 1,000 candles is allowed; a cursor of another list is refused
    expect((await p.call(`/v1/tokens/${MINT}/candles?interval=1m&from=2026-01-01T00:00:00Z&to=2026-01-01T16:40:00Z`)).status).toBe(200);
    const cursor = (await p.call(`/v1/tokens/${MINT}/trades?limit=1`)).body.nextCursor;
    expect((await p.call(`/v1/tokens?cursor=${cursor}`)).status).toBe(400);
    expect((await p.call(`/v1/feed?cursor=${cursor}`)).status).toBe(400);
    // a Data API cursor is not a tokens cursor (each list names its own)
    const agents = (await p.call("/v1/public/agents?limit=1")).body.nextCursor;
    if (agents) expect((await p.call(`/v1/tokens?cursor=${agents}`)).status).toBe(400);
  });

  test("CORS preflight from any origin on every route", async () => {
    for (const path of ["/v1/tokens", `/v1/tokens/${MINT}`, `/v1/tokens/${MINT}/trades`, `/v1/tokens/${MINT}/candles`, "/v1/price/sol", "/v1/feed", `/v1/daemons/${MINT}/feed`]) {
      const res = await p.call(path, { method: "OPTIONS", headers: { origin: "https://dash.example", "access-control-request-method": "GET" } });
      expect({ path, status: res.status }).toEqual({ path, status: 204 });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toContain("GET");
    }
  });

  test("unknown parameters share the cache entry; the answer is cached for its lifetime", async () => {
    const c = await testPlatform(fixtureRegistry(), { responseCache: true });
    const [original] = await c.engines.sql`SELECT description FROM agents WHERE mint = ${MINT}`;
    try {
      expect((await c.call(`/v1/tokens/${MINT}?utm_source=x`)).body.description).toBe(original!.description);
      await c.engines.sql`UPDATE agents SET description = 'changed under the cache' WHERE mint = ${MINT}`;
      const again = await c.call(`/v1/tokens/${MINT}?junk=1`);
      expect(again.body.description).toBe(original!.description);
      expect(again.headers.get("cache-control")).toBe("public, max-age=5");
      expect((await c.call(`/v1/tokens?q=${MINT}`)).body.items[0].description).toBe("changed under the cache");
    } finally {
      await c.engines.sql`UPDATE agents SET description = ${original!.description} WHERE mint = ${MINT}`;
    }
  });

  test("the per-client budget covers these reads too (429 RATE_LIMITED with CORS)", async () => {
    await overNetwork({ env: { DATA_API_RATE_PER_MINUTE: "6", DATA_API_RATE_BURST: "2" } }, async (get) => {
      expect((await get("/v1/price/sol")).status).toBe(200);
      expect((await get("/v1/tokens")).status).toBe(200);
      const refused = await get("/v1/feed");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("access-control-allow-origin")).toBe("*");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await refused.json()) as any).error.code).toBe("RATE_LIMITED");
    });
  });
});

describe("Application API public reads on two days of simulated traffic", () => {
  const SEED = 113; // its own mints: no other test file uses this seed
  const configs = fixtureSimConfigs(SEED);
  let p: Platform;
  let mints: string[] = [];
  let graduated: string[] = [];
  let start = 0;
  beforeAll(async () => {
    p = await testPlatform(simulatedConfigRegistry(configs));
    const now = Math.floor(Date.now() / 1000);
    const count = 4000;
    start = now - 2 * 86400;
    const sim = createSimulator({ seed: SEED, configs, pools: 5, initialPools: 3, startTime: start, secondsPerTx: (2 * 86400) / count });
    for (let i = 0; i < count; i += 250) expect((await p.postWebhook(sim.next(250))).status).toBe(200);
    mints = sim.state().pools.map((x) => x.mint);
    graduated = sim.state().pools.filter((x) => x.graduated).map((x) => x.mint);
    // a SOL price history that starts 12 h into the traffic (earlier candles: USD null), with
    // every 5th minute missing (a gap: the previous minute's price); halves, so sums are exact
    const first = Math.floor((start + 12 * 3600) / 60) * 60;
    const history = [];
    for (let m = first, i = 0; m < now + 120; m += 60, i++) if (i % 5 !== 4) history.push({ minute: m, usd: 140 + (i % 37) * 0.5, source: "exchange", recorded_at: m });
    await p.engines.ch.insert("sol_price_1m", history);
  });

  test("candles in USD: each minute at its own SOL price, a missing minute at the one before, null before the first price", async () => {
    const mint = mints[0]!;
    const got = await apiCandles(p, mint, "1m", start - 60, Math.floor(Date.now() / 1000) + 60);
    const recorded = new Map((await recordedSolPrices(p.engines.ch, 0, 2 ** 32 - 1)).map((r) => [r.minute, r.usd]));
    const firstPrice = Math.min(...recorded.keys());
    const before = got.filter((c) => Date.parse(c.time) / 1000 < firstPrice);
    const inGap = got.filter((c) => Date.parse(c.time) / 1000 > firstPrice && !recorded.has(Date.parse(c.time) / 1000));
    const priced = got.filter((c) => recorded.has(Date.parse(c.time) / 1000));
    expect(before.length * inGap.length * priced.length).toBeGreaterThan(0);
    for (const c of before) expect([c.openUsd, c.highUsd, c.lowUsd, c.closeUsd, c.volumeUsd]).toEqual([null, null, null, null, null]);
    for (const c of priced) {
      const usd = recorded.get(Date.parse(c.time) / 1000)!;
      expect([c.openUsd, c.highUsd, c.lowUsd, c.closeUsd, c.volumeUsd]).toEqual([c.open * usd, c.high * usd, c.low * usd, c.close * usd, (Number(lamports(c.volumeSol)) * usd) / 1e9]);
    }
    for (const c of inGap) {
      const usd = recorded.get(Date.parse(c.time) / 1000 - 60)!; // the minute before is recorded (gaps are one minute)
      expect([c.openUsd, c.closeUsd]).toEqual([c.open * usd, c.close * usd]);
    }
  });

  test("every coin's market equals the Data API agent's", async () => {
    for (const mint of mints) {
      const [coin, agent] = await Promise.all([p.call(`/v1/tokens/${mint}`), p.call(`/v1/public/agents/${mint}`)]);
      expect(coin.status).toBe(200);
      expect(coin.body.market).toEqual(agent.body.market);
    }
  });

  test("list cursors round-trip for every sort, each coin once, in the sort's order", async () => {
    for (const sort of ["new", "marketcap", "trending"]) {
      const seen = await allPages(p, `/v1/tokens?sort=${sort}&limit=2`);
      expect(new Set(seen.map((c) => c.mint)).size).toBe(seen.length);
      for (const m of mints) expect(seen.map((c) => c.mint)).toContain(m);
      const value = (c: any) => (sort === "new" ? Date.parse(c.createdAt) : Number(sort === "marketcap" ? c.market.marketCapSol : c.market.volume24hSol));
      const values = seen.map(value);
      expect([...values].sort((a, b) => b - a)).toEqual(values);
    }
  });

  test("candles of every interval reconcile with the trades (OHLC, volume to the lamport, counts), graduated coins in one series", async () => {
    expect(graduated.length).toBeGreaterThan(0);
    const now = Math.floor(Date.now() / 1000) + 60;
    for (const mint of mints) {
      for (const [interval, step] of Object.entries(INTERVALS)) {
        const got = await apiCandles(p, mint, interval, start - 86400, now);
        expect({ mint, interval, candles: got }).toEqual({ mint, interval, candles: await ledgerCandles(p, mint, step) });
      }
    }
    for (const mint of graduated) {
      const venues = await p.engines.ch.query<{ venue: string; n: string }>("SELECT toString(venue) AS venue, toString(count()) AS n FROM trades WHERE mint = {mint:String} GROUP BY venue", { mint });
      expect(venues.length).toBe(2); // curve and DAMM v2 trades, both in the candles above
    }
  });

  test("the global feed pages through launches and trades once each, newest first", async () => {
    const paged = await allPages(p, "/v1/feed?kinds=launch,trade&limit=50");
    const ours = paged.filter((i) => mints.includes(i.mint));
    const trades = await p.engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades WHERE mint IN {mints:Array(String)}", { mints });
    expect(ours.filter((i) => i.kind === "trade")).toHaveLength(Number(trades[0]!.n));
    expect(ours.filter((i) => i.kind === "launch")).toHaveLength(mints.length);
    expect(new Set(paged.map((i) => i.id)).size).toBe(paged.length);
    for (const i of ours) expect(Object.keys(i).sort()).toEqual(FEED_KEYS);
  });
});
