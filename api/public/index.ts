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
import { CORS, NOT_FOUND_SECONDS, cachedAnswer, pageTtl as ttlOfPage, takeFromBudget, type ClientBudget } from "./http";

/** Seconds a shared cache may keep each answer (the spec's cache table); `notFound`: a 404, kept briefly. */
export const CACHE_SECONDS = { agents: 5, tradesFirstPage: 2, laterPages: 60, activity: 3, stats: 15, price: 3, configs: 60, notFound: NOT_FOUND_SECONDS };

export type DataApiDeps = PublicDeps &
  ClientBudget & {
    cluster: "mainnet" | "devnet";
    cache: ResponseCache;
    /** trade exports one client address may run at once (EXPORT_CONCURRENCY_PER_CLIENT); default 2 */
    exportsPerClient?: number;
  };

/** The SOL price as both APIs answer it: the first source that answers, or 503 with Retry-After. */
export async function solPriceAnswer(deps: Pick<PublicDeps, "price">, set: { headers: Record<string, string | number> }) {
  const price = await deps.price.current();
  if (!price) throw new ApiError(503, "PRICE_UNAVAILABLE", "no SOL/USD price source answers right now; retry in a few seconds", undefined, { "retry-after": "3" });
  set.headers["cache-control"] = `public, max-age=${CACHE_SECONDS.price}`;
  return price;
}

export const publicRoutes = (deps: DataApiDeps) => {
  const cached = cachedAnswer(deps.cache);
  const pageTtl = (cursor: unknown, first: number) => ttlOfPage(cursor, first, CACHE_SECONDS.laterPages);

  return new Elysia({ prefix: "/v1/public" })
    .onRequest(({ request, set, server }) => {
      // onRequest runs before routing, for every path of the app: only the Data API's are this feature's
      // (a preflight of another path gets that feature's CORS, e.g. Authorization allowed by name on signed-in routes)
      if (!new URL(request.url).pathname.startsWith("/v1/public/")) return;
      Object.assign(set.headers, CORS);
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
      takeFromBudget(deps, request, server);
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
    .get("/price/sol", ({ set }) => solPriceAnswer(deps, set))
    .get("/configs", ({ set }) => cached(set, ["configs"], CACHE_SECONDS.configs, () => configsList(deps, deps.cluster)));
};
