/**
 * Live pool state and quotes of the Application API's public reads:
 * GET /v1/tokens/:mint/pool and GET /v1/tokens/:mint/quote. Any origin, like the Data API.
 * An answer made from a kept chain read says so: `Cache-Control: public, max-age=2` with
 * `Age` = seconds since the read, so a shared cache keeps it only while the read is under 2 s old.
 */
import { Elysia } from "elysia";
import { MintParam, QuoteRequestSchema } from "./model";
import { poolState, quote, type Answer, type PoolDeps } from "./service";
import { ApiError, parseOrThrow } from "../errors";
import { CORS, NOT_FOUND_SECONDS, takeFromBudget, type ClientBudget } from "../public/http";

export type PoolRouteDeps = PoolDeps & ClientBudget;

const ROUTES = /^\/v1\/tokens\/[^/]+\/(pool|quote)$/;

export const poolRoutes = (deps: PoolRouteDeps) => {
  const answer = async (set: { headers: Record<string, string | number> }, produce: () => Promise<Answer<unknown>>) => {
    try {
      const { value, readAtMs } = await produce();
      if (deps.reader) {
        set.headers["cache-control"] = `public, max-age=${deps.reader.ttlSeconds}`;
        set.headers["age"] = String(deps.reader.ageSeconds({ readAtMs }));
      }
      return value;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        throw new ApiError(404, err.code, err.message, err.details, { ...err.headers, "cache-control": `public, max-age=${NOT_FOUND_SECONDS}` });
      throw err;
    }
  };
  return new Elysia({ prefix: "/v1/tokens" })
    .onRequest(({ request, set, server }) => {
      const path = new URL(request.url).pathname;
      // onRequest runs for every path of the app: only these two routes are this feature's
      if (!ROUTES.test(path)) return;
      Object.assign(set.headers, CORS);
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
      takeFromBudget(deps, request, server);
    })
    .get("/:mint/pool", ({ params, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      return answer(set, () => poolState(deps, mint));
    })
    .get("/:mint/quote", ({ params, query, set }) => {
      const { mint, ...q } = parseOrThrow(QuoteRequestSchema, { ...query, mint: params.mint });
      return answer(set, () => quote(deps, mint, q));
    });
};
