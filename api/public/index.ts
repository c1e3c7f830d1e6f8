/**
 * The Data API: /v1/public. No key, any origin, cacheable answers.
 *
 * Query parameters a route does not know are ignored: they do not change the answer, and
 * they do not make a separate cache entry (the cache key is the parsed request). Each
 * client address gets a request budget (rate-limit.ts, client-address.ts).
 */
import { Elysia } from "elysia";
import { listAgents, getAgent, type PublicDeps } from "./agents-service";
import { listTrades, listActivity } from "./feed-service";
import { stats, configsList } from "./stats-service";
import { parseOrThrow, AgentsQuery, TradesQuery, ActivityQuery, MintParam } from "./model";
import { ApiError } from "../errors";
import type { ResponseCache } from "./cache";
import { tooManyRequests, type ClientLimiter } from "./rate-limit";
import type { ClientAddressOf } from "./client-address";

/** Seconds a shared cache may keep each answer (the spec's cache table); `notFound`: a 404, kept briefly. */
export const CACHE_SECONDS = { agents: 5, tradesFirstPage: 2, laterPages: 60, activity: 3, stats: 15, price: 3, configs: 60, notFound: 3 };

export type DataApiDeps = PublicDeps & {
  cluster: "mainnet" | "devnet";
  cache: ResponseCache;
  /** the per-client request budget; null = no limit */
  limiter?: ClientLimiter | null;
  /** which client a request counts against (null for an in-process call: not limited) */
  clientOf?: ClientAddressOf;
};

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-max-age": "86400",
};

/** A 404 the cache keeps, answered again as the same 404 until it expires. */
type CachedNotFound = { notFound: ApiError };

export const publicRoutes = (deps: DataApiDeps) => {
  /**
   * Answers from the shared cache when it can, and sets Cache-Control either way.
   * `key` is the route and its parsed parameters, so equal requests share one entry.
   */
  const cached = async (set: { headers: Record<string, string | number> }, key: unknown[], ttl: number, produce: () => Promise<unknown>) => {
    const k = JSON.stringify(key);
    const hit = deps.cache.get(k);
    if (hit !== undefined) {
      if ((hit as CachedNotFound).notFound) throw (hit as CachedNotFound).notFound;
      set.headers["cache-control"] = `public, max-age=${ttl}`;
      return hit;
    }
    try {
      const value = await produce();
      deps.cache.set(k, value, ttl);
      set.headers["cache-control"] = `public, max-age=${ttl}`;
      return value;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
      const notFound = new ApiError(404, err.code, err.message, err.details, { ...err.headers, "cache-control": `public, max-age=${CACHE_SECONDS.notFound}` });
      deps.cache.set(k, { notFound } satisfies CachedNotFound, CACHE_SECONDS.notFound);
      throw notFound;
    }
  };
  const pageTtl = (cursor: unknown, first: number) => (cursor ? CACHE_SECONDS.laterPages : first);

  return new Elysia({ prefix: "/v1/public" })
    .onRequest(({ request, set, server }) => {
      Object.assign(set.headers, CORS);
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
      // onRequest runs before routing, for every path of the app: count only the Data API's
      if (!deps.limiter || !deps.clientOf || !new URL(request.url).pathname.startsWith("/v1/public/")) return;
      const client = deps.clientOf(server?.requestIP(request)?.address ?? (server ? "" : null), request.headers.get("x-forwarded-for"));
      if (client === null) return;
      const taken = deps.limiter.take(client);
      if (!taken.ok) throw tooManyRequests(taken.retryAfterSeconds);
    })
    .get("/agents", ({ query, set }) => {
      const q = parseOrThrow(AgentsQuery, query);
      return cached(set, ["agents", q], pageTtl(q.cursor, CACHE_SECONDS.agents), () => listAgents(deps, q));
    })
    .get("/agents/:mint", ({ params, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      return cached(set, ["agent", mint], CACHE_SECONDS.agents, () => getAgent(deps, mint));
    })
    .get("/agents/:mint/trades", ({ params, query, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      const q = parseOrThrow(TradesQuery, query);
      return cached(set, ["trades", mint, q], pageTtl(q.cursor, CACHE_SECONDS.tradesFirstPage), () => listTrades(deps, mint, q));
    })
    .get("/agents/:mint/activity", ({ params, query, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      const q = parseOrThrow(ActivityQuery, query);
      return cached(set, ["activity", mint, q], pageTtl(q.cursor, CACHE_SECONDS.activity), () => listActivity(deps, mint, q));
    })
    .get("/activity", ({ query, set }) => {
      const q = parseOrThrow(ActivityQuery, query);
      return cached(set, ["activity", null, q], pageTtl(q.cursor, CACHE_SECONDS.activity), () => listActivity(deps, null, q));
    })
    .get("/stats", ({ set }) => cached(set, ["stats"], CACHE_SECONDS.stats, () => stats(deps)))
    .get("/price/sol", async ({ set }) => {
      const price = await deps.price.current();
      if (!price) throw new ApiError(503, "PRICE_UNAVAILABLE", "no SOL/USD price source answers right now; retry in a few seconds", undefined, { "retry-after": "3", ...CORS });
      set.headers["cache-control"] = `public, max-age=${CACHE_SECONDS.price}`;
      return price;
    })
    .get("/configs", ({ set }) => cached(set, ["configs"], CACHE_SECONDS.configs, () => configsList(deps, deps.cluster)));
};
