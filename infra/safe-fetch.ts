/**
 * Fetching a URL that came from outside (token metadata, coin images): only globally routable
 * https addresses, checked again after every redirect, with a time limit and a size cap that
 * stops reading at the limit. Loopback can be allowed for tests only.
 *
 * The host is resolved once, every address it resolves to is checked, and the connection goes to
 * the address that was checked (TLS still verifies the certificate for the host name, and the
 * Host header names it): a host that changes its DNS answer between the check and the connection
 * (rebinding) reaches nothing new. Addresses are parsed by ipaddr.js, and IPv6 forms that carry
 * an IPv4 address (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4
 * 2002::/16) are judged by that IPv4 address.
 *
 * Error messages are the same whatever happened on the network (a closed port and an open one
 * must not be told apart by a caller); what happened is in `detail`, for logs only.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** Addresses for a host name; injectable so tests can play a rebinding DNS server. */
export type Resolver = (host: string) => Promise<string[]>;

export type SafeFetchOptions = {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
  /** tests only: loopback test doubles, over http too */
  allowLoopback?: boolean;
  resolve?: Resolver;
  /** tests only: the certificate of a loopback https double */
  trustedCa?: string;
};

const MESSAGES = {
  REFUSED: "the URL is not a public https:// address",
  TOO_LARGE: "the file is over the size limit",
  UNREACHABLE: "the URL could not be fetched",
  BAD_STATUS: "the URL could not be fetched",
} as const;

export class SafeFetchError extends Error {
  constructor(
    readonly code: keyof typeof MESSAGES,
    /** what happened, for logs; never for clients (it can tell which internal ports answer) */
    readonly detail: string,
  ) {
    super(MESSAGES[code]);
  }
}

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (p.slice(0, 6).every((x) => x === 0) && !(p[6] === 0 && p[7]! <= 1)) return v4(p[6]!, p[7]!); // ::a.b.c.d (not :: or ::1)
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return v4(p[6]!, p[7]!); // 64:ff9b::/96
  if (p[0] === 0x2002) return v4(p[1]!, p[2]!); // 6to4
  return null;
}

/** Globally routable: not private, loopback, link-local, unique- or site-local, multicast, CGNAT, documentation, benchmarking, reserved or unspecified. */
export function isNonPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv4") return addr.range() !== "unicast";
  const v6 = addr as ipaddr.IPv6;
  const v4 = embeddedIPv4(v6);
  if (v4) return v4.range() !== "unicast";
  // Global unicast is 2000::/3; ipaddr.js names the special ranges inside it (documentation, Teredo, ...).
  return v6.range() !== "unicast" || (v6.parts[0]! & 0xe000) !== 0x2000;
}

function isLoopback(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const addr = ipaddr.parse(ip);
  const v4 = addr.kind() === "ipv6" ? embeddedIPv4(addr as ipaddr.IPv6) : (addr as ipaddr.IPv4);
  return (v4 ?? addr).range() === "loopback";
}

/** Parses and checks a URL; resolves its host once and returns the addresses to connect to, all checked. */
async function checkUrl(raw: string, opts: SafeFetchOptions): Promise<{ url: URL; addresses: string[] }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SafeFetchError("REFUSED", `not a URL: ${raw.slice(0, 100)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new SafeFetchError("REFUSED", `scheme ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (opts.resolve ?? systemResolver)(host);
  } catch (err) {
    throw new SafeFetchError("UNREACHABLE", `cannot resolve ${host}: ${(err as Error).message}`);
  }
  if (addresses.length === 0) throw new SafeFetchError("UNREACHABLE", `${host} has no address`);
  const loopbackOk = (opts.allowLoopback ?? false) && addresses.every(isLoopback);
  if (url.protocol !== "https:" && !loopbackOk) throw new SafeFetchError("REFUSED", `http:// to ${host}`);
  if (!loopbackOk && addresses.some(isNonPublicAddress)) throw new SafeFetchError("REFUSED", `${host} resolves to a non-public address (${addresses.join(", ")})`);
  return { url, addresses };
}

/** `url` pointed at `address` itself, so the connection cannot go anywhere the check did not see. */
function pinned(url: URL, address: string): URL {
  const target = new URL(url);
  target.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return target;
}

/** GET with the checks above; resolves to the body bytes and content type. */
export async function safeFetch(raw: string, opts: SafeFetchOptions): Promise<{ bytes: Uint8Array; contentType: string; url: string }> {
  let { url, addresses } = await checkUrl(raw, opts);
  const signal = AbortSignal.timeout(opts.timeoutMs);
  for (let hop = 0; ; hop++) {
    let res: Response;
    const name = url.hostname.replace(/^\[|\]$/g, "");
    // Bun checks the certificate against serverName, so pinning the address keeps TLS verification for the host name.
    const tls = url.protocol === "https:" ? { ...(isIP(name) ? {} : { serverName: name }), ...(opts.trustedCa ? { ca: opts.trustedCa } : {}) } : undefined;
    const failures: string[] = [];
    let answered: Response | undefined;
    // Each checked address in the resolver's order, as a connection to the name would (an IPv6 answer on an IPv4-only network).
    for (const address of addresses) {
      try {
        answered = await fetch(pinned(url, address), { redirect: "manual", signal, headers: { accept: "*/*", host: url.host }, tls } as RequestInit);
        break;
      } catch (err) {
        failures.push(`${address}: ${(err as Error).message}`);
        if (signal.aborted) break;
      }
    }
    if (!answered) throw new SafeFetchError("UNREACHABLE", `${url.host}: ${failures.join("; ")}`);
    res = answered;
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      if (hop >= (opts.maxRedirects ?? 3)) throw new SafeFetchError("UNREACHABLE", "too many redirects");
      ({ url, addresses } = await checkUrl(new URL(res.headers.get("location")!, url).toString(), opts));
      continue;
    }
    if (!res.ok) throw new SafeFetchError("BAD_STATUS", `${url.host} answered ${res.status}`);
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > opts.maxBytes) throw new SafeFetchError("TOO_LARGE", `${declared} bytes (content-length), over the ${opts.maxBytes}-byte limit`);
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read(); // a timeout or a reset mid-body lands here, not in fetch()
      } catch (err) {
        throw new SafeFetchError("UNREACHABLE", `${url.host}: the body stopped: ${(err as Error).message}`);
      }
      const { done, value } = read;
      if (done) break;
      size += value.byteLength;
      if (size > opts.maxBytes) {
        await reader.cancel();
        throw new SafeFetchError("TOO_LARGE", `more than ${opts.maxBytes} bytes; reading stopped there`);
      }
      chunks.push(value);
    }
    return { bytes: Buffer.concat(chunks), contentType: res.headers.get("content-type") ?? "", url: url.toString() };
  }
}
