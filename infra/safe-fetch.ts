/**
 * Fetching a URL that came from outside (token metadata, coin images): only public
 * https addresses, checked again after every redirect, with a time limit and a
 * size cap that stops reading at the limit. Loopback can be allowed for tests only.
 *
 * Known limit: the address is checked at lookup time; a host that changes its DNS
 * answer between the check and the connection (rebinding) is not caught.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

export type SafeFetchOptions = { maxBytes: number; timeoutMs: number; maxRedirects?: number; allowLoopback?: boolean };
export class SafeFetchError extends Error {
  constructor(
    readonly code: "REFUSED" | "TOO_LARGE" | "UNREACHABLE" | "BAD_STATUS",
    message: string,
  ) {
    super(message);
  }
}

const ipv4ToInt = (ip: string) => ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
const inRange = (ip: string, cidr: string) => {
  const [base, bits] = cidr.split("/");
  const mask = bits === "0" ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return ((ipv4ToInt(ip) & mask) >>> 0) === ((ipv4ToInt(base!) & mask) >>> 0);
};
const PRIVATE_V4 = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4"];

/** True for loopback, private, link-local (cloud metadata), CGNAT, multicast and reserved addresses. */
export function isNonPublicAddress(ip: string): boolean {
  if (isIP(ip) === 4) return PRIVATE_V4.some((r) => inRange(ip, r));
  const v6 = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
  if (mapped) return isNonPublicAddress(mapped[1]!);
  return v6 === "::" || v6 === "::1" || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || v6.startsWith("ff");
}
const isLoopback = (ip: string) => (isIP(ip) === 4 ? inRange(ip, "127.0.0.0/8") : ip === "::1" || /^::ffff:127\./.test(ip));

async function checkUrl(raw: string, allowLoopback: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SafeFetchError("REFUSED", `not a URL: ${raw.slice(0, 100)}`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : await lookup(host, { all: true }).then((r) => r.map((a) => a.address)).catch(() => {
    throw new SafeFetchError("UNREACHABLE", `cannot resolve ${host}`);
  });
  const loopbackOk = allowLoopback && addresses.every(isLoopback);
  if (url.protocol !== "https:" && !(loopbackOk && url.protocol === "http:")) throw new SafeFetchError("REFUSED", "only https:// addresses are fetched");
  if (!loopbackOk && addresses.some(isNonPublicAddress)) throw new SafeFetchError("REFUSED", `${host} is not a public address`);
  return url;
}

/** GET with the checks above; resolves to the body bytes and content type. */
export async function safeFetch(raw: string, opts: SafeFetchOptions): Promise<{ bytes: Uint8Array; contentType: string; url: string }> {
  let url = await checkUrl(raw, opts.allowLoopback ?? false);
  const signal = AbortSignal.timeout(opts.timeoutMs);
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(url, { redirect: "manual", signal, headers: { accept: "*/*" } });
    } catch (err) {
      throw new SafeFetchError("UNREACHABLE", `${url.host}: ${(err as Error).message}`);
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      if (hop >= (opts.maxRedirects ?? 3)) throw new SafeFetchError("UNREACHABLE", "too many redirects");
      url = await checkUrl(new URL(res.headers.get("location")!, url).toString(), opts.allowLoopback ?? false);
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
