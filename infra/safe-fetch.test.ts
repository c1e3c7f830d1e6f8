import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isNonPublicAddress, safeFetch, SafeFetchError, type SafeFetchOptions } from "./safe-fetch";

const NON_PUBLIC: [string, string][] = [
  ["127.0.0.1", "loopback"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["192.168.1.1", "private"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["100.64.0.1", "CGNAT"],
  ["0.0.0.0", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["192.0.2.1", "documentation"],
  ["198.18.0.1", "benchmarking"],
  ["240.0.0.1", "reserved"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["fd00::1", "unique-local"],
  ["fe80::1", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
  ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
  ["::127.0.0.1", "IPv4-compatible loopback"],
  ["::10.0.0.1", "IPv4-compatible private"],
  ["64:ff9b::127.0.0.1", "NAT64 of loopback"],
  ["64:ff9b::a9fe:a9fe", "NAT64 of metadata"],
  ["2002:7f00:1::", "6to4 of loopback"],
  ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
  ["2001::1", "Teredo"],
  ["not an ip", "garbage"],
];
const PUBLIC = ["1.1.1.1", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:1.1.1.1", "64:ff9b::808:808", "2002:808:808::1"];

describe("safe fetch: addresses", () => {
  test.each(NON_PUBLIC)("%s (%s) is not public", (ip) => expect(isNonPublicAddress(ip)).toBe(true));
  test.each(PUBLIC)("%s is public", (ip) => expect(isNonPublicAddress(ip)).toBe(false));
});

const attempt = async (url: string, opts: Partial<SafeFetchOptions> = {}) => {
  try {
    const r = await safeFetch(url, { maxBytes: 1000, timeoutMs: 2000, ...opts });
    return { code: "fetched", message: new TextDecoder().decode(r.bytes) };
  } catch (err) {
    if (!(err instanceof SafeFetchError)) throw err;
    return { code: err.code, message: err.message };
  }
};

describe("safe fetch", () => {
  let hosts: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req): Response {
      const url = new URL(req.url);
      hosts.push(req.headers.get("host") ?? "");
      if (url.pathname === "/big") return new Response(new Uint8Array(5000));
      if (url.pathname === "/to-metadata") return Response.redirect("https://169.254.169.254/", 302);
      if (url.pathname === "/to-mapped") return Response.redirect(`https://[::ffff:127.0.0.1]:${server.port}/small`, 302);
      if (url.pathname === "/to-name") return Response.redirect(`http://rebind.test:${server.port}/small`, 302);
      if (url.pathname === "/hop") return Response.redirect("/small", 302);
      if (url.pathname === "/error") return new Response("db down: 10.0.0.5:5432", { status: 500 });
      return new Response("hello");
    },
  });
  afterAll(() => server.stop(true));
  const base = `http://127.0.0.1:${server.port}`;
  /** A port nothing listens on: a server that was there and stopped. */
  let closedPort = 0;
  beforeAll(() => {
    const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    closedPort = s.port!;
    s.stop(true);
  });

  test("refuses non-https, private, metadata and IPv4-in-IPv6 addresses before connecting, all with one message", async () => {
    const urls = [
      "http://1.1.1.1/x",
      "https://169.254.169.254/latest/meta-data",
      "https://10.0.0.1/",
      "https://[::1]/",
      "not a url",
      "file:///etc/passwd",
      "https://localhost/",
      `https://[::ffff:127.0.0.1]:${server.port}/`,
      "https://[::ffff:127.0.0.1]:5432/",
      "https://[::127.0.0.1]/",
      "https://[64:ff9b::7f00:1]/",
      "https://[2002:7f00:1::]/",
      "https://[fec0::1]/",
    ];
    const results = await Promise.all(urls.map(async (url) => [url, await attempt(url)] as const));
    for (const [url, r] of results) expect([url, r]).toEqual([url, { code: "REFUSED", message: "the URL is not a public https:// address" }]);
  });

  test("an open and a closed internal port give the same answer", async () => {
    const open = await attempt(`https://[::ffff:127.0.0.1]:${server.port}/`);
    const closed = await attempt(`https://[::ffff:127.0.0.1]:${closedPort}/`);
    expect(open).toEqual(closed);
    // with loopback allowed (tests), what failed is still not in the message
    const refusedConn = await attempt(`http://127.0.0.1:${closedPort}/`, { allowLoopback: true });
    const serverError = await attempt(`${base}/error`, { allowLoopback: true });
    expect(refusedConn).toEqual({ code: "UNREACHABLE", message: "the URL could not be fetched" });
    expect(serverError.message).toBe(refusedConn.message);
  });

  test("the connection goes to the address that was checked: a rebinding resolver is asked once", async () => {
    const answers = ["127.0.0.1", "10.0.0.1"];
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return [answers[Math.min(asked.length - 1, 1)]!];
    };
    hosts = [];
    // rebind.test has no DNS entry: this only works if fetch connects to the checked address itself
    const r = await attempt(`http://rebind.test:${server.port}/small`, { allowLoopback: true, resolve });
    expect(r).toEqual({ code: "fetched", message: "hello" });
    expect(asked).toEqual(["rebind.test"]);
    expect(hosts).toEqual([`rebind.test:${server.port}`]);
    // the next lookup answers a private address: refused, even with loopback allowed
    expect((await attempt(`http://rebind.test:${server.port}/small`, { allowLoopback: true, resolve })).code).toBe("REFUSED");
  });

  test("when the first checked address does not answer, the next one is tried", async () => {
    const resolve = async () => ["::1", "127.0.0.1"]; // the double listens on 127.0.0.1 only
    expect(await attempt(`http://two.test:${server.port}/small`, { allowLoopback: true, resolve })).toEqual({ code: "fetched", message: "hello" });
  });

  test("a name resolving to any non-public address is refused", async () => {
    const resolve = async () => ["93.184.215.14", "::ffff:10.0.0.1"];
    expect((await attempt("https://mixed.test/", { resolve })).code).toBe("REFUSED");
  });

  test("loopback only when allowed (tests), size cap, redirects re-checked", async () => {
    expect((await attempt(`${base}/small`)).code).toBe("REFUSED");
    expect(await attempt(`${base}/hop`, { allowLoopback: true })).toEqual({ code: "fetched", message: "hello" });
    expect((await attempt(`${base}/big`, { allowLoopback: true })).code).toBe("TOO_LARGE");
    expect((await attempt(`${base}/to-metadata`, { allowLoopback: true })).code).toBe("REFUSED");
  });

  test("a redirect is resolved and checked again", async () => {
    const resolve = async () => ["10.0.0.1"];
    expect((await attempt(`${base}/to-name`, { allowLoopback: true, resolve })).code).toBe("REFUSED");
    expect(await attempt(`${base}/to-mapped`)).toEqual({ code: "REFUSED", message: "the URL is not a public https:// address" });
  });
});

describe("safe fetch: https pinned to the checked address", () => {
  let dir: string;
  let cert = "";
  let server: ReturnType<typeof Bun.serve> | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "safe-fetch-tls-"));
    const made = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=image.test", "-addext", "subjectAltName=DNS:image.test",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")]);
    if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: { key: readFileSync(join(dir, "key.pem"), "utf8"), cert }, fetch: (req) => new Response(`host ${req.headers.get("host")}`) });
  });
  afterAll(() => {
    server?.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("TLS is verified for the host name while the connection goes to the checked address", async () => {
    const resolve = async () => ["127.0.0.1"];
    const port = server!.port;
    expect(await attempt(`https://image.test:${port}/`, { allowLoopback: true, resolve, trustedCa: cert })).toEqual({ code: "fetched", message: `host image.test:${port}` });
    // a certificate for another name is not accepted
    expect((await attempt(`https://other.test:${port}/`, { allowLoopback: true, resolve, trustedCa: cert })).code).toBe("UNREACHABLE");
  });
});
