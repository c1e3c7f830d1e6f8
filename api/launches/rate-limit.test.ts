/** The per-key sliding window: exact counts, Retry-After, per-key independence, no charge for refusals. */
import { describe, expect, test } from "bun:test";
import { createRateLimiter, rateLimited } from "./rate-limit";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe("rate limiter", () => {
  test("at most perMinute in any 60 s, then Retry-After until the oldest leaves the window", () => {
    const c = clock();
    const rl = createRateLimiter({ perMinute: 3, now: c.now });
    expect(rl.take("a")).toEqual({ ok: true });
    c.advance(10_000);
    expect(rl.take("a")).toEqual({ ok: true });
    c.advance(10_000);
    expect(rl.take("a")).toEqual({ ok: true });
    expect(rl.take("a")).toEqual({ ok: false, retryAfterSeconds: 40 }); // first one leaves at t0+60 s
    c.advance(39_500);
    expect(rl.take("a")).toEqual({ ok: false, retryAfterSeconds: 1 });
    c.advance(500);
    expect(rl.take("a")).toEqual({ ok: true }); // the first left; the window now holds 10 s, 20 s, 60 s
    expect(rl.take("a")).toEqual({ ok: false, retryAfterSeconds: 10 });
  });

  test("keys are independent; refused requests are not counted", () => {
    const c = clock();
    const rl = createRateLimiter({ perMinute: 2, now: c.now });
    expect([rl.take("a").ok, rl.take("a").ok, rl.take("a").ok]).toEqual([true, true, false]);
    expect(rl.take("b")).toEqual({ ok: true });
    for (let i = 0; i < 100; i++) {
      c.advance(100);
      expect(rl.take("a").ok).toBe(false);
    }
    c.advance(50_000); // 60 s after the two accepted ones, despite 100 refusals in between
    expect(rl.take("a")).toEqual({ ok: true });
  });

  test("a steady rate at the limit always passes; idle keys are forgotten and start fresh", () => {
    const c = clock();
    const rl = createRateLimiter({ perMinute: 60, now: c.now });
    for (let i = 0; i < 600; i++) {
      expect(rl.take("k").ok).toBe(true);
      c.advance(1_000);
    }
    c.advance(120_000);
    for (let i = 0; i < 60; i++) expect(rl.take("k").ok).toBe(true);
    expect(rl.take("k").ok).toBe(false);
    expect(() => createRateLimiter({ perMinute: 0 })).toThrow(RangeError);
  });

  test("rateLimited is the spec's 429 with Retry-After", () => {
    const err = rateLimited(7);
    expect({ status: err.status, code: err.code, headers: err.headers }).toEqual({ status: 429, code: "RATE_LIMITED", headers: { "retry-after": "7" } });
  });
});
