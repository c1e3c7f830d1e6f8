import { describe, expect, test, afterAll } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { testEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { refreshCoinMetadata, resolveUri } from "./metadata";

// Loopback test double of a metadata host.
const host = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/good.json") return Response.json({ name: "X", image: "https://cdn.example/x.png", description: "  A coin.  " });
    if (path === "/ipfs.json") return Response.json({ image: "ipfs://bafyimage/x.png" });
    if (path === "/broken.json") return new Response("{not json");
    return new Response("no", { status: 404 });
  },
});
afterAll(() => host.stop(true));
const url = (p: string) => `http://127.0.0.1:${host.port}${p}`;
const options = { maxBytes: 256 * 1024, timeoutMs: 2000, allowLoopback: true, ipfsGateway: "https://ipfs.example/ipfs/" };

describe("coin metadata", () => {
  test("resolves ipfs URIs through the gateway", () => {
    expect(resolveUri("ipfs://bafy/meta.json", "https://gw.example/ipfs/")).toBe("https://gw.example/ipfs/bafy/meta.json");
    expect(resolveUri("https://a.example/m.json", "https://gw.example/ipfs/")).toBe("https://a.example/m.json");
  });

  test("fills image and description, keeps what a launch set, records failures for retry", async () => {
    const { sql } = await testEngines();
    const mk = async (uri: string, image = "") => {
      const mint = Keypair.generate().publicKey.toBase58();
      await sql`INSERT INTO agents (mint, creator, vault, metadata_uri, image_url) VALUES (${mint}, 'c', 'v', ${uri}, ${image})`;
      return mint;
    };
    const good = await mk(url("/good.json"));
    const launched = await mk(url("/good.json"), "https://launch.example/own.png");
    const ipfs = await mk(url("/ipfs.json"));
    const broken = await mk(url("/broken.json"));
    const missing = await mk(url("/missing.json"));
    await refreshCoinMetadata({ sql, log: createLogger("error"), options, limit: 1000 });
    const rows = new Map((await sql`SELECT mint, image_url, description, metadata_error, metadata_attempts FROM agents WHERE mint IN ${sql([good, launched, ipfs, broken, missing])}`).map((r) => [r.mint, r]));
    expect(rows.get(good)).toMatchObject({ image_url: "https://cdn.example/x.png", description: "A coin.", metadata_error: null });
    expect(rows.get(launched)!.image_url).toBe("https://launch.example/own.png");
    expect(rows.get(ipfs)!.image_url).toBe("https://ipfs.example/ipfs/bafyimage/x.png");
    expect(rows.get(broken)!.metadata_error).toBeString();
    expect(rows.get(missing)!.metadata_error).toContain("404");
    // failed ones wait for their backoff; nothing is fetched again right away
    const again = await sql`SELECT count(*)::int AS n FROM agents WHERE mint IN ${sql([good, broken, missing])} AND metadata_attempts = 1`;
    await refreshCoinMetadata({ sql, log: createLogger("error"), options, limit: 1000 });
    expect((await sql`SELECT count(*)::int AS n FROM agents WHERE mint IN ${sql([good, broken, missing])} AND metadata_attempts = 1`)[0]!.n).toBe(again[0]!.n);
  });
});
