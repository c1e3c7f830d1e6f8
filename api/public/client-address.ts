/**
 * Which client a Data API request counts against (the per-client rate limit).
 *
 * The client is the socket's peer address. Only when that peer is one of the configured
 * trusted proxies (DATA_API_TRUSTED_PROXIES; none by default) is X-Forwarded-For read, from
 * the right: each entry a trusted proxy appended is skipped, and the first address that is
 * not a trusted proxy is the client. Entries left of it were written by the client and are
 * never believed. IPv4-mapped IPv6 counts as its IPv4 address; an IPv6 client counts as its
 * /64, the block one subscriber usually holds, so rotating addresses inside it gains nothing.
 */
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export type ClientAddressOf = (peer: string | null, forwardedFor: string | null) => string | null;

/** `trusted`: IPs or CIDRs. Returns null when there is no peer (an in-process call, not over a network). */
export function clientAddressOf(trusted: readonly string[]): ClientAddressOf {
  const ranges: Range[] = trusted.map((t) => (t.includes("/") ? ipaddr.parseCIDR(t) : single(ipaddr.process(t))));
  const isTrusted = (a: ipaddr.IPv4 | ipaddr.IPv6) => ranges.some(([net, bits]) => net.kind() === a.kind() && a.match([net, bits] as never));
  return (peer, forwardedFor) => {
    const p = parse(peer);
    if (!p) return peer === null ? null : `peer:${peer}`;
    let client = p;
    if (ranges.length && forwardedFor && isTrusted(p)) {
      const hops = forwardedFor.split(",").map((h) => h.trim());
      for (let i = hops.length - 1; i >= 0 && isTrusted(client); i--) {
        const hop = parse(hops[i]!);
        if (!hop) break; // not written by a trusted proxy: keep the last proxy we trust
        client = hop;
      }
    }
    return key(client);
  };
}

const single = (a: ipaddr.IPv4 | ipaddr.IPv6): Range => [a, a.kind() === "ipv4" ? 32 : 128];

function parse(address: string | null): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!address || !ipaddr.isValid(address)) return null;
  return ipaddr.process(address); // unwraps ::ffff:a.b.c.d
}

function key(a: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (a.kind() === "ipv4") return a.toString();
  const parts = (a as ipaddr.IPv6).parts.slice(0, 4).map((n) => n.toString(16));
  return `${parts.join(":")}::/64`;
}

