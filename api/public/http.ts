/**
 * What every public read shares (the Data API and the Application API's public reads):
 * CORS for any origin, the shared response cache with Cache-Control, a briefly cached
 * 404, and the per-client request budget.
 */
import { ApiError } from "../errors";
import type { ResponseCache } from "./cache";
import { tooManyRequests, type ClientLimiter } from "./rate-limit";
import type { ClientAddressOf } from "./client-address";

export const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-max-age": "86400",
};

/** Seconds a cached 404 is kept (and says so): asking again and again for a missing coin does not reach the engines. */
export const NOT_FOUND_SECONDS = 3;

/** A 404 the cache keeps, answered again as the same 404 until it expires. */
type CachedNotFound = { notFound: ApiError };
type SetHeaders = { headers: Record<string, string | number> };

/**
 * Answers from the shared cache when it can, and sets Cache-Control either way.
 * `key` is the route and its parsed parameters, so equal requests share one entry.
 * With a cache, equal requests that miss it while an answer is being computed wait for that
 * answer (or its 404) instead of computing it again: under load, one computation per key at a time.
 * The answer is kept as its JSON text, so a hit is not serialized again (the most traded coin's
 * 1,000-candle answers: cached p50 0.6 → 0.2–0.3 ms); it is sent as `application/json`, as Elysia sends objects.
 */
export const cachedAnswer = (cache: ResponseCache) => {
  const inFlight = new Map<string, Promise<unknown>>();
  /** computes, caches the answer or its 404 */
  const compute = async (k: string, ttl: number, produce: () => Promise<unknown>) => {
    try {
      const text = JSON.stringify(await produce());
      cache.set(k, text, ttl);
      return text;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
      const notFound = new ApiError(404, err.code, err.message, err.details, { ...err.headers, "cache-control": `public, max-age=${NOT_FOUND_SECONDS}` });
      cache.set(k, { notFound } satisfies CachedNotFound, NOT_FOUND_SECONDS);
      throw notFound;
    }
  };
  return async (set: SetHeaders, key: unknown[], ttl: number, produce: () => Promise<unknown>): Promise<string> => {
    const k = JSON.stringify(key);
    const hit = cache.get(k);
    if (hit !== undefined) {
      if ((hit as CachedNotFound).notFound) throw (hit as CachedNotFound).notFound;
      return answered(set, ttl, hit as string);
    }
    let run = cache.enabled ? inFlight.get(k) : undefined;
    if (!run) {
      run = compute(k, ttl, produce);
      if (cache.enabled) {
        inFlight.set(k, run);
        const done = () => void inFlight.delete(k);
        run.then(done, done);
      }
    }
    return answered(set, ttl, (await run) as string);
  };
};

/** An answer's JSON text with its headers. */
function answered(set: SetHeaders, ttl: number, text: string): string {
  set.headers["cache-control"] = `public, max-age=${ttl}`;
  set.headers["content-type"] = "application/json";
  return text;
}

/** First pages live briefly; a later page (a cursor) is older data and may be kept a minute. */
export const pageTtl = (cursor: unknown, first: number, later: number) => (cursor ? later : first);

export type ClientBudget = {
  /** the per-client request budget; null = no limit */
  limiter?: ClientLimiter | null;
  /** which client a request counts against (null for an in-process call: not limited) */
  clientOf?: ClientAddressOf;
};

/** Takes one request from the client's budget, or throws 429 RATE_LIMITED. */
export function takeFromBudget(
  deps: ClientBudget,
  request: Request,
  server: { requestIP(r: Request): { address: string } | null } | null | undefined,
): void {
  if (!deps.limiter || !deps.clientOf) return;
  const client = deps.clientOf(server?.requestIP(request)?.address ?? (server ? "" : null), request.headers.get("x-forwarded-for"));
  if (client === null) return;
  const taken = deps.limiter.take(client);
  if (!taken.ok) throw tooManyRequests(taken.retryAfterSeconds);
}
