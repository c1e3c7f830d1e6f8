import { describe, expect, test } from "bun:test";
import { metricsDenial } from "./metrics-access";

const h = (init: Record<string, string> = {}) => new Headers(init);

describe("who may read /metrics", () => {
  test("without METRICS_TOKEN: loopback and in-process callers only, never through a proxy", () => {
    expect(metricsDenial(null, "127.0.0.1", h())).toBeNull();
    expect(metricsDenial(null, "::1", h())).toBeNull();
    expect(metricsDenial(null, "::ffff:127.0.0.1", h())).toBeNull();
    expect(metricsDenial(null, null, h())).toBeNull(); // app.handle: no socket
    expect(metricsDenial(null, "203.0.113.9", h())?.status).toBe(403);
    expect(metricsDenial(null, "", h())?.status).toBe(403); // a socket whose peer is unknown
    expect(metricsDenial(null, "127.0.0.1", h({ "x-forwarded-for": "203.0.113.9" }))?.status).toBe(403);
    expect(metricsDenial(null, "127.0.0.1", h({ forwarded: "for=203.0.113.9" }))?.status).toBe(403);
    for (const header of ["via", "x-client-ip", "true-client-ip", "cf-connecting-ip"])
      expect(metricsDenial(null, "127.0.0.1", h({ [header]: "203.0.113.9" }))?.status).toBe(403);
  });

  test("with METRICS_TOKEN: the bearer token, from anywhere; loopback alone is not enough", () => {
    const token = "metrics-token-0123456789";
    expect(metricsDenial(token, "203.0.113.9", h({ authorization: `Bearer ${token}` }))).toBeNull();
    expect(metricsDenial(token, "127.0.0.1", h())?.status).toBe(401);
    expect(metricsDenial(token, null, h({ authorization: `Bearer ${token}x` }))?.status).toBe(401);
    expect(metricsDenial(token, null, h({ authorization: token }))?.status).toBe(401);
  });
});
