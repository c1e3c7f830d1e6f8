/**
 * Per-API-key request rate limit of the Launch API (LAUNCH_RATE_PER_MINUTE): an exact sliding
 * window, at most `perMinute` accepted requests in any 60 seconds. Each key keeps the times
 * of its last `perMinute` accepted requests in a ring (8 bytes each); a request is accepted
 * when the oldest of them is more than a minute old. Refused requests do not count.
 *
 * In memory: with several api processes each enforces its own window, so the effective limit
 * is up to perMinute × processes. The daily LAUNCH_QUOTA is counted from the launches table
 * by other code, not here.
 */
import { ApiError } from "../errors";

const WINDOW_MS = 60_000;

export type RateLimitResult = { ok: true } | { ok: false; retryAfterSeconds: number };
export type RateLimiter = { take(keyId: string): RateLimitResult };

export function createRateLimiter(o: { perMinute: number; now?: () => number }): RateLimiter {
  const perMinute = Math.floor(o.perMinute);
  if (!(perMinute >= 1)) throw new RangeError("perMinute must be at least 1");
  const now = o.now ?? Date.now;
  const windows = new Map<string, { times: Float64Array; next: number; last: number }>();
  let sweptAt = now();

  return {
    take(keyId) {
      const t = now();
      if (t - sweptAt >= WINDOW_MS) {
        // forget keys idle for a whole window: they hold nothing that could refuse a request
        for (const [id, w] of windows) if (t - w.last >= WINDOW_MS) windows.delete(id);
        sweptAt = t;
      }
      let w = windows.get(keyId);
      if (!w) windows.set(keyId, (w = { times: new Float64Array(perMinute).fill(-Infinity), next: 0, last: t }));
      const oldest = w.times[w.next]!; // the slot about to be reused holds the oldest accepted time
      if (t - oldest < WINDOW_MS) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - t) / 1000)) };
      w.times[w.next] = t;
      w.next = (w.next + 1) % perMinute;
      w.last = t;
      return { ok: true };
    },
  };
}

/** The spec's 429 RATE_LIMITED answer, with its Retry-After header. */
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, "RATE_LIMITED", `too many requests with this API key; retry in ${retryAfterSeconds} s`, undefined, { "retry-after": String(retryAfterSeconds) });
