/**
 * The Data API's per-client request limit (DATA_API_RATE_PER_MINUTE, DATA_API_RATE_BURST):
 * a token bucket per client address, in memory. A client may make `burst` requests at once,
 * then `perMinute` a minute; beyond that it gets 429 RATE_LIMITED with Retry-After.
 *
 * Each client costs one small record (two numbers), so a flood of addresses costs memory
 * in proportion; past `maxClients` the least recently seen client is forgotten (it starts
 * again with a full bucket). With several api replicas each keeps its own buckets, so the
 * effective limit is up to perMinute × replicas.
 */
import { ApiError } from "../errors";

export type ClientLimiter = { take(client: string): { ok: true } | { ok: false; retryAfterSeconds: number } };

export function createClientLimiter(o: { perMinute: number; burst: number; maxClients?: number; now?: () => number }): ClientLimiter {
  const perMs = o.perMinute / 60_000;
  const burst = Math.max(1, o.burst);
  const maxClients = o.maxClients ?? 100_000;
  const now = o.now ?? Date.now;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(client) {
      const t = now();
      let b = buckets.get(client);
      if (b) {
        buckets.delete(client); // re-inserted below: the map stays in least-recently-seen order
        b.tokens = Math.min(burst, b.tokens + (t - b.at) * perMs);
        b.at = t;
      } else {
        if (buckets.size >= maxClients) buckets.delete(buckets.keys().next().value!);
        b = { tokens: burst, at: t };
      }
      buckets.set(client, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)) };
    },
  };
}

/** The spec's 429 RATE_LIMITED, with Retry-After. */
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(429, "RATE_LIMITED", `too many requests from this address; retry in ${retryAfterSeconds} s`, undefined, { "retry-after": String(retryAfterSeconds) });
