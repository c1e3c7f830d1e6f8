import { describe, expect, test, afterAll } from "bun:test";
import { isNonPublicAddress, safeFetch, SafeFetchError } from "./safe-fetch";

describe("safe fetch", () => {
  test("classifies addresses", () => {
    for (const ip of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "224.0.0.1"])
      expect(isNonPublicAddress(ip), ip).toBe(true);
    for (const ip of ["1.1.1.1", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111"]) expect(isNonPublicAddress(ip), ip).toBe(false);
  });

  const refused = async (url: string, allowLoopback = false) => {
    try {
      await safeFetch(url, { maxBytes: 1000, timeoutMs: 1000, allowLoopback });
    } catch (err) {
      return (err as SafeFetchError).code;
    }
    return "fetched";
  };

  test("refuses non-https, private and metadata addresses before connecting", async () => {
    expect(await refused("http://1.1.1.1/x")).toBe("REFUSED");
    expect(await refused("https://169.254.169.254/latest/meta-data")).toBe("REFUSED");
    expect(await refused("https://10.0.0.1/")).toBe("REFUSED");
    expect(await refused("https://[::1]/")).toBe("REFUSED");
    expect(await refused("not a url")).toBe("REFUSED");
    expect(await refused("https://localhost/")).toBe("REFUSED");
  });

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/big") return new Response(new Uint8Array(5000));
      if (path === "/to-metadata") return Response.redirect("https://169.254.169.254/", 302);
      if (path === "/hop") return Response.redirect("/small", 302);
      return new Response("hello");
    },
  });
  afterAll(() => server.stop(true));
  const base = `http://127.0.0.1:${server.port}`;

  test("loopback only when allowed (tests), size cap, redirects re-checked", async () => {
    expect(await refused(`${base}/small`)).toBe("REFUSED");
    const ok = await safeFetch(`${base}/hop`, { maxBytes: 1000, timeoutMs: 2000, allowLoopback: true });
    expect(new TextDecoder().decode(ok.bytes)).toBe("hello");
    expect(await refused(`${base}/big`, true)).toBe("TOO_LARGE");
    expect(await refused(`${base}/to-metadata`, true)).toBe("REFUSED");
  });
});
