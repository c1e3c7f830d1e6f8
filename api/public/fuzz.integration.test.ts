/**
 * Property: whatever the query string or cursor, the Data API and the Application API's
 * public reads (/v1/tokens…, /v1/feed, /v1/daemons/…, /v1/price/sol, /v1/platform/stats,
 * /v1/analytics/overview, /v1/tokenomics) and the trade export answer 200,
 * 400 or 404, never 500. Queries and cursors are generated from a seeded generator (the seed is in
 * the failure message), mixing valid values, junk and forged cursors that carry the
 * right list tag around positions of every JSON type.
 */
import { describe, expect, test, beforeAll } from "bun:test";
import { fixturePlatform, FIXTURE_MINT as MINT } from "../../compose/testing/data-api";
import { encodeCursor, ACTIVITY_KINDS } from "./model";
import { FEED_KINDS, DEFAULT_FEED_KINDS } from "../app-public/model";

const SIG = "5gf6fduSgAssqxYpgRzcCHWcg7yKTdtynsYxU4x7B25YANEKZDFRvFtq22FaGaqReftbErAijndSfcNnSXiW2WZN";

/** mulberry32: small, seeded, good enough to pick test inputs. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, pick, int: (n: number) => Math.floor(next() * n) };
}

describe("Data API under fuzzed queries and cursors", () => {
  let p: Awaited<ReturnType<typeof fixturePlatform>>;
  beforeAll(async () => {
    p = await fixturePlatform();
  });

  test("random query strings and cursors never give a 500", async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261123);
    const r = rng(seed);
    const word = () => r.pick(["", "x", "-1", "0", "1", "50", "51", "1e3", "1.5", "NaN", "9".repeat(40), "%00", "%F0%9F%92%A9", "%ZZ", "'; DROP TABLE agents;--", "a".repeat(600), MINT, SIG, "new", "trade", "launch,trade", ",,,", "trade,,thinking",
      "1m", "4h", "1d", "1w", "2025-10-17", "2025-10-17T10:00:00Z", "2026-13-45T99:99:99Z", "1969-12-31T23:59:59Z", "2099-12-31T23:59:59.999999999+14:00", "2100-01-01T00:00:01Z", "0000-01-01"]);
    const anyJson = (depth = 0): unknown =>
      r.pick([
        () => r.int(70000) - 2,
        () => r.next() * 1e20,
        () => -r.next(),
        () => String(r.int(1e9)),
        () => "x",
        () => "9".repeat(r.int(45)),
        () => MINT,
        () => SIG,
        () => null,
        () => true,
        () => (depth < 2 ? [anyJson(depth + 1)] : []),
        () => ({}),
        () => 2 ** 64,
        () => Number.MAX_SAFE_INTEGER + 2,
      ])();
    const lists = ["agents:new", "agents:marketcap", "agents:trending", "agents:volume", `trades:${MINT}`, "activity:*:" + ACTIVITY_KINDS.filter((k) => k !== "trade" && k !== "thinking").sort().join(","), `activity:${MINT}:launch,trade`, "activity:*:launch",
      "tokens:new", "tokens:marketcap", "tokens:trending", "feed:*:" + [...DEFAULT_FEED_KINDS].sort().join(","), `feed:${MINT}:launch,trade`];
    const cursor = () =>
      r.pick([
        () => encodeCursor(r.pick(lists), Array.from({ length: r.int(5) }, () => anyJson()) as (string | number)[]),
        () => Buffer.from(JSON.stringify({ l: r.pick(lists), p: anyJson() })).toString("base64url"),
        () => Buffer.from(JSON.stringify(anyJson())).toString("base64url"),
        () => word(),
        () => "eyJsIjoiYWdlbnRzOm5ldyIsInAiOlsieCIsInkiXX0",
      ])();
    const mint = () => r.pick([MINT, MINT, "So11111111111111111111111111111111111111112", "not-a-mint", "%00", "1".repeat(44)]);
    const paths = [
      () => "/v1/public/agents",
      () => `/v1/public/agents/${mint()}`,
      () => `/v1/public/agents/${mint()}/trades`,
      () => `/v1/public/agents/${mint()}/activity`,
      () => "/v1/public/activity",
      () => "/v1/public/stats",
      () => "/v1/public/configs",
      () => "/v1/tokens",
      () => `/v1/tokens/${mint()}`,
      () => `/v1/tokens/${mint()}/trades`,
      () => `/v1/tokens/${mint()}/candles`,
      () => "/v1/feed",
      () => `/v1/daemons/${mint()}/feed`,
      () => "/v1/price/sol",
      () => "/v1/daemons/catalog",
      () => `/v1/daemons/${mint()}`,
      () => `/v1/daemons/${mint()}/stdout`,
      () => "/v1/platform/stats",
      () => "/v1/analytics/overview",
      () => "/v1/tokenomics",
      () => "/v1/public/exports/trades",
    ];
    const keys = ["sort", "category", "q", "limit", "cursor", "kinds", "junk", "limit", "cursor", "__proto__", "constructor", "interval", "from", "to", "from", "to", "range", "range", "mint", "format"];
    const failures: string[] = [];
    for (let i = 0; i < 500; i++) {
      const params = Array.from({ length: r.int(5) }, () => {
        const k = r.pick(keys);
        return `${k}=${k === "cursor" ? cursor() : k === "range" ? r.pick(["24h", "7d", "30d", "all", word()]) : k === "kinds" ? r.pick([word(), r.pick([ACTIVITY_KINDS, FEED_KINDS]).slice(0, r.int(ACTIVITY_KINDS.length)).join(",")]) : word()}`;
      });
      const path = `${r.pick(paths)()}${params.length ? "?" + params.join("&") : ""}`;
      const res = await p.call(path);
      if (![200, 400, 404].includes(res.status)) failures.push(`${res.status} ${path} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    expect(failures, `seed ${seed}`).toEqual([]);
  });
});
