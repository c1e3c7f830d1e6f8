/**
 * Who may read /metrics (METRICS_TOKEN). Metrics name internals (tables, topics, lag,
 * routes and their timings), so they are not public by default:
 * - METRICS_TOKEN set: the request must carry `Authorization: Bearer <token>`, from anywhere.
 * - unset: loopback clients only (curl on the same host, a Prometheus beside the process), and
 *   only when no proxy forwarded the request (a proxy on the same host would make every
 *   visitor look local). An in-process call (`app.handle`, no socket) counts as local.
 */
import { timingSafeEqual } from "node:crypto";
import ipaddr from "ipaddr.js";

export type MetricsDenial = { status: 401 | 403; code: string; message: string };

/** Headers a proxy or CDN in front of the process adds: any of them means the client is not local. */
const PROXY_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip", "via", "x-client-ip", "true-client-ip", "cf-connecting-ip", "x-forwarded-host", "fastly-client-ip", "x-cluster-client-ip"];

/** null = allowed. `peer`: the socket's address; null for an in-process call. */
export function metricsDenial(token: string | null, peer: string | null, headers: Headers): MetricsDenial | null {
  if (token !== null) {
    const given = Buffer.from(headers.get("authorization") ?? "");
    const wanted = Buffer.from(`Bearer ${token}`);
    if (given.length === wanted.length && timingSafeEqual(given, wanted)) return null;
    return { status: 401, code: "UNAUTHORIZED", message: "metrics need Authorization: Bearer <METRICS_TOKEN>" };
  }
  const forwarded = PROXY_HEADERS.some((h) => headers.has(h));
  if (peer === null || (isLoopback(peer) && !forwarded)) return null;
  return { status: 403, code: "FORBIDDEN", message: "metrics are served to loopback clients only; set METRICS_TOKEN to scrape them from elsewhere" };
}

/** The answer to a denied request, in the API's error envelope; never cached. */
export const metricsDenied = (d: MetricsDenial) =>
  new Response(JSON.stringify({ error: { code: d.code, message: d.message } }), {
    status: d.status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...(d.status === 401 ? { "www-authenticate": "Bearer" } : {}) },
  });

function isLoopback(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === "loopback";
}
