/**
 * The Data API: /v1/public. No key, any origin, cacheable answers.
 */
import { Elysia } from "elysia";
import { listAgents, getAgent, type PublicDeps } from "./agents-service";
import { listTrades, listActivity } from "./feed-service";
import { stats, configsList } from "./stats-service";
import { parseOrThrow, AgentsQuery, TradesQuery, ActivityQuery, MintParam } from "./model";
import { ApiError } from "../errors";
import type { ResponseCache } from "./cache";

/** Seconds a shared cache may keep each answer (the spec's cache table). */
export const CACHE_SECONDS = { agents: 5, tradesFirstPage: 2, laterPages: 60, activity: 3, stats: 15, price: 3, configs: 60 };

export type DataApiDeps = PublicDeps & { cluster: "mainnet" | "devnet"; cache: ResponseCache };

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-max-age": "86400",
};

export const publicRoutes = (deps: DataApiDeps) => {
  /** Answers from the shared cache when it can, and sets Cache-Control either way. */
  const cached = async (set: { headers: Record<string, string | number> }, url: string, ttl: number, produce: () => Promise<unknown>) => {
    set.headers["cache-control"] = `public, max-age=${ttl}`;
    const hit = deps.cache.get(url);
    if (hit !== undefined) return hit;
    const value = await produce();
    deps.cache.set(url, value, ttl);
    return value;
  };
  const pageTtl = (cursor: unknown, first: number) => (cursor ? CACHE_SECONDS.laterPages : first);
  const key = (request: Request) => {
    const u = new URL(request.url);
    return u.pathname + u.search;
  };

  return new Elysia({ prefix: "/v1/public" })
    .onRequest(({ request, set }) => {
      Object.assign(set.headers, CORS);
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
    })
    .get("/agents", ({ query, request, set }) => {
      const q = parseOrThrow(AgentsQuery, query);
      return cached(set, key(request), pageTtl(q.cursor, CACHE_SECONDS.agents), () => listAgents(deps, q));
    })
    .get("/agents/:mint", ({ params, request, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      return cached(set, key(request), CACHE_SECONDS.agents, () => getAgent(deps, mint));
    })
    .get("/agents/:mint/trades", ({ params, query, request, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      const q = parseOrThrow(TradesQuery, query);
      return cached(set, key(request), pageTtl(q.cursor, CACHE_SECONDS.tradesFirstPage), () => listTrades(deps, mint, q));
    })
    .get("/agents/:mint/activity", ({ params, query, request, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      const q = parseOrThrow(ActivityQuery, query);
      return cached(set, key(request), pageTtl(q.cursor, CACHE_SECONDS.activity), () => listActivity(deps, mint, q));
    })
    .get("/activity", ({ query, request, set }) => {
      const q = parseOrThrow(ActivityQuery, query);
      return cached(set, key(request), pageTtl(q.cursor, CACHE_SECONDS.activity), () => listActivity(deps, null, q));
    })
    .get("/stats", ({ request, set }) => cached(set, key(request), CACHE_SECONDS.stats, () => stats(deps)))
    .get("/price/sol", async ({ set }) => {
      const price = await deps.price.current();
      if (!price) throw new ApiError(503, "PRICE_UNAVAILABLE", "no SOL/USD price source answers right now; retry in a few seconds", undefined, { "retry-after": "3", ...CORS });
      set.headers["cache-control"] = `public, max-age=${CACHE_SECONDS.price}`;
      return price;
    })
    .get("/configs", ({ request, set }) => cached(set, key(request), CACHE_SECONDS.configs, () => configsList(deps, deps.cluster)));
};
