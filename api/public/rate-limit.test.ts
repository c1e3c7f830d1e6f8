import { describe, expect, test } from "bun:test";
import { createClientLimiter } from "./rate-limit";
import { clientAddressOf } from "./client-address";

describe("per-client limit (token bucket)", () => {
  test("a burst, then the per-minute rate; Retry-After says when the next token comes", () => {
    let t = 0;
    const limiter = createClientLimiter({ perMinute: 60, burst: 3, now: () => t });
    expect([1, 2, 3].map(() => limiter.take("a").ok)).toEqual([true, true, true]);
    expect(limiter.take("a")).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.take("b").ok).toBe(true); // another client has its own bucket
    t += 1000;
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
    t += 60_000;
    expect([1, 2, 3, 4].map(() => limiter.take("a").ok)).toEqual([true, true, true, false]); // refills up to the burst only
  });

  test("a slow rate gives a Retry-After of many seconds", () => {
    const limiter = createClientLimiter({ perMinute: 2, burst: 1, now: () => 0 });
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a")).toEqual({ ok: false, retryAfterSeconds: 30 });
  });

  test("past maxClients the least recently seen client is forgotten", () => {
    const limiter = createClientLimiter({ perMinute: 1, burst: 1, maxClients: 2, now: () => 0 });
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("b").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false); // a is now the most recent
    expect(limiter.take("c").ok).toBe(true); // forgets b
    expect(limiter.take("a").ok).toBe(false);
    expect(limiter.take("b").ok).toBe(true);
  });
});

describe("client address", () => {
  test("without trusted proxies X-Forwarded-For is ignored", () => {
    const of = clientAddressOf([]);
    expect(of("198.51.100.7", "203.0.113.9")).toBe("198.51.100.7");
    expect(of("::ffff:198.51.100.7", null)).toBe("198.51.100.7");
    expect(of(null, "203.0.113.9")).toBeNull(); // in-process call
  });

  test("behind trusted proxies: the first address from the right that is not a proxy", () => {
    const of = clientAddressOf(["10.0.0.0/8", "192.0.2.1"]);
    expect(of("10.1.2.3", "203.0.113.9")).toBe("203.0.113.9");
    expect(of("10.1.2.3", "6.6.6.6, 203.0.113.9, 192.0.2.1")).toBe("203.0.113.9"); // the spoofed left entry is not believed
    expect(of("10.1.2.3", "garbage")).toBe("10.1.2.3");
    expect(of("198.51.100.7", "203.0.113.9")).toBe("198.51.100.7"); // peer is not a proxy: header ignored
  });

  test("an IPv6 client counts as its /64", () => {
    const of = clientAddressOf([]);
    expect(of("2001:db8:1:2:aaaa::1", null)).toBe(of("2001:db8:1:2:bbbb::2", null));
    expect(of("2001:db8:1:2::1", null)).not.toBe(of("2001:db8:1:3::1", null));
  });
});
