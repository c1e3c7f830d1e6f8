/**
 * The Application API's public reads (no sign-in) under /v1: coins, their trades and
 * candles, the SOL price and the feed. The Data API's conventions: any origin, the shared
 * response cache with Cache-Control, cursors bound to their list, every problem of a
 * query in one 400 VALIDATION_ERROR, unknown parameters ignored, the per-client budget.
 */
import { Elysia } from "elysia";
import { solPriceAnswer, type DataApiDeps } from "../public";
import { CORS, cachedAnswer, pageTtl, takeFromBudget } from "../public/http";
import { parseOrThrow, validationError, ApiError } from "../errors";
import { listTrades } from "../public/feed-service";
import { listTokens, getToken, candles } from "./tokens-service";
import { listFeed } from "./feed-service";
import { TokensQuery, TradesQuery, MintParam, FeedQuery, AnalyticsQuery, parseCandlesQuery } from "./model";
import { platformStats } from "./platform-stats";
import { analyticsOverview } from "./analytics-service";
import { tokenomics } from "./tokenomics-service";

/** Seconds a shared cache may keep each answer: the Data API's for the same data (the SOL price: its 3 s); candles as trades (2 s) while the window is open, a minute once closed. */
export const APP_CACHE_SECONDS = {
  tokens: 5, token: 5, tradesFirstPage: 2, feed: 3, laterPages: 60, candlesOpen: 2, candlesClosed: 60,
  /** the spec's cache table: platform totals as the Data API's stats (15 s), analytics up to a minute, tokenomics 30 s */
  platformStats: 15, analytics: 60, tokenomics: 30,
};

/** The paths these routes answer (for the CORS preflight, which runs before routing). */
const PATHS = /^\/v1\/(tokens(\/[^/]+(\/(trades|candles))?)?|price\/sol|feed|daemons\/[^/]+\/feed|platform\/stats|analytics\/overview|tokenomics)\/?$/;

/** Runs every parse and reports all their problems in one 400 (a bad mint and a bad query together). */
export function parseAll<T extends unknown[]>(...parses: { [K in keyof T]: () => T[K] }): T {
  const problems: { field: string; message: string }[] = [];
  const out = parses.map((parse) => {
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "VALIDATION_ERROR" || !Array.isArray(err.details)) throw err;
      problems.push(...err.details);
    }
  });
  if (problems.length) throw validationError(problems);
  return out as T;
}

export const appPublicRoutes = (deps: DataApiDeps, now = () => Date.now()) => {
  const cached = cachedAnswer(deps.cache);
  const later = (cursor: unknown, first: number) => pageTtl(cursor, first, APP_CACHE_SECONDS.laterPages);
  return new Elysia({ prefix: "/v1" })
    .onRequest(({ request }) => {
      if (request.method === "OPTIONS" && PATHS.test(new URL(request.url).pathname)) return new Response(null, { status: 204, headers: CORS });
    })
    .onBeforeHandle(({ request, set, server }) => {
      Object.assign(set.headers, CORS);
      takeFromBudget(deps, request, server);
    })
    .get("/tokens", ({ query, set }) => {
      const q = parseOrThrow(TokensQuery, query);
      return cached(set, ["tokens", q], later(q.cursor, APP_CACHE_SECONDS.tokens), () => listTokens(deps, q));
    })
    .get("/tokens/:mint", ({ params, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      return cached(set, ["token", mint], APP_CACHE_SECONDS.token, () => getToken(deps, mint));
    })
    .get("/tokens/:mint/trades", ({ params, query, set }) => {
      const [{ mint }, q] = parseAll(() => parseOrThrow(MintParam, params), () => parseOrThrow(TradesQuery, query));
      return cached(set, ["token-trades", mint, q], later(q.cursor, APP_CACHE_SECONDS.tradesFirstPage), () => listTrades(deps, mint, q));
    })
    .get("/tokens/:mint/candles", ({ params, query, set }) => {
      const nowSeconds = Math.floor(now() / 1000);
      const [{ mint }, w] = parseAll(() => parseOrThrow(MintParam, params), () => parseCandlesQuery(query, nowSeconds));
      const ttl = w.to <= nowSeconds ? APP_CACHE_SECONDS.candlesClosed : APP_CACHE_SECONDS.candlesOpen;
      return cached(set, ["candles", mint, w], ttl, () => candles(deps, mint, w));
    })
    .get("/price/sol", ({ set }) => solPriceAnswer(deps, set))
    .get("/platform/stats", ({ set }) => cached(set, ["platform-stats"], APP_CACHE_SECONDS.platformStats, () => platformStats(deps, now())))
    .get("/analytics/overview", ({ query, set }) => {
      const { range } = parseOrThrow(AnalyticsQuery, query);
      return cached(set, ["analytics", range], APP_CACHE_SECONDS.analytics, () => analyticsOverview(deps, range, now()));
    })
    .get("/tokenomics", ({ set }) => cached(set, ["tokenomics"], APP_CACHE_SECONDS.tokenomics, () => tokenomics(deps, now())))
    .get("/feed", ({ query, set }) => {
      const q = parseOrThrow(FeedQuery, query);
      return cached(set, ["feed", null, q], later(q.cursor, APP_CACHE_SECONDS.feed), () => listFeed(deps, null, q));
    })
    .get("/daemons/:mint/feed", ({ params, query, set }) => {
      const [{ mint }, q] = parseAll(() => parseOrThrow(MintParam, params), () => parseOrThrow(FeedQuery, query));
      return cached(set, ["feed", mint, q], later(q.cursor, APP_CACHE_SECONDS.feed), () => listFeed(deps, mint, q));
    });
};
