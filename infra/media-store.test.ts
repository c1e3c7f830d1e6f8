/**
 * The content-addressed media store on a temp dir, and its IPFS pinning against a
 * loopback Pinata-shaped test double.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMediaStore, PinningError } from "./media-store";

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "media-store-"));
  dirs.push(dir);
  return dir;
};

/** Test double of Pinata's pinFileToIPFS: records what reached it; `/fail` answers 500, `/garbage` non-JSON. */
const pinned: { authorization: string | null; fileName: string; fileType: string; fileBytes: Uint8Array; metadata: string | null }[] = [];
const pinataDouble = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/fail") return new Response(JSON.stringify({ error: "boom" }), { status: 500 });
    if (path === "/garbage") return new Response("<html>gateway</html>");
    const form = await req.formData();
    const file = form.get("file") as File;
    const fileBytes = new Uint8Array(await file.arrayBuffer());
    pinned.push({ authorization: req.headers.get("authorization"), fileName: file.name, fileType: file.type, fileBytes, metadata: form.get("pinataMetadata") as string | null });
    const cid = "bafkrei" + createHash("sha256").update(fileBytes).digest("hex").slice(0, 40);
    return Response.json({ IpfsHash: cid, PinSize: fileBytes.length, Timestamp: new Date().toISOString() });
  },
});
const pinUrl = `http://127.0.0.1:${pinataDouble.port}/pinning/pinFileToIPFS`;

afterAll(async () => {
  pinataDouble.stop(true);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const bytes = (text: string) => new TextEncoder().encode(text);
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("media store (local)", () => {
  test("put/get round trip; same bytes give the same name and url", async () => {
    const dir = await tempDir();
    const store = createMediaStore({ dir, apiBaseUrl: "https://api.example.com/", ipfsGateway: "https://ipfs.io/ipfs/" });
    const data = bytes("\x89PNG pretend image");
    const a = await store.put(data, "png", "image/png");
    expect(a).toEqual({ name: `${sha(data)}.png`, url: `https://api.example.com/v1/media/${sha(data)}.png`, sha256: sha(data) });
    expect(await store.put(data, "png", "image/png")).toEqual(a);
    expect(await store.get(a.name)).toEqual({ bytes: data, mime: "image/png" });
    const json = await store.put(bytes('{"name":"x"}'), "json", "application/json");
    expect((await store.get(json.name))?.mime).toBe("application/json");
    expect(await store.get(`${"0".repeat(64)}.png`)).toBeNull(); // valid name, nothing stored
    expect((await readdir(dir)).sort()).toEqual([a.name, json.name].sort()); // no temp files left
  });

  test("atomic write: temp file then rename; leftovers of a crash are never served", async () => {
    const dir = await tempDir();
    const store = createMediaStore({ dir, apiBaseUrl: "http://localhost:3000", ipfsGateway: "https://ipfs.io/ipfs/" });
    const data = new Uint8Array(1024 * 1024).map((_, i) => i % 251);
    const name = `${sha(data)}.webp`;
    // what a crash half-way through a write leaves behind: a partial temp file
    await writeFile(join(dir, `${name}.3f0c-crashed.tmp`), data.subarray(0, 1000));
    expect(await store.get(name)).toBeNull();
    expect(await store.get(`${name}.3f0c-crashed.tmp`)).toBeNull();
    // concurrent puts of the same bytes all land on one complete file
    const results = await Promise.all(Array.from({ length: 8 }, () => store.put(data, "webp", "image/webp")));
    expect(new Set(results.map((r) => r.name))).toEqual(new Set([name]));
    expect((await store.get(name))!.bytes).toEqual(data);
    expect((await readdir(dir)).filter((f) => f.endsWith(".tmp") && !f.includes("crashed"))).toEqual([]);
    // a write dying half-way for real: a child process with a 1 MB file-size limit (ulimit -f) puts 4 MB and fails with EFBIG
    const big = new Uint8Array(4 * 1024 * 1024).fill(7);
    const child = Bun.spawnSync(["bash", "-c", `ulimit -f 1024; exec "$0" -e "$1"`, process.execPath,
      `import { createMediaStore } from ${JSON.stringify(join(import.meta.dir, "media-store.ts"))};
       await createMediaStore({ dir: ${JSON.stringify(dir)}, apiBaseUrl: "http://x", ipfsGateway: "https://ipfs.io/ipfs/" }).put(new Uint8Array(${big.length}).fill(7), "png", "image/png");`]);
    expect(child.exitCode).not.toBe(0);
    expect(child.stderr.toString()).toContain("EFBIG");
    const bigName = `${sha(big)}.png`;
    expect(await store.get(bigName)).toBeNull(); // no partial file under the real name (a plain writeFile leaves 1 MB there)
    expect((await readdir(dir)).filter((f) => f.startsWith(bigName))).toEqual([]); // and its temp file was removed
    expect((await store.put(big, "png", "image/png")).name).toBe(bigName);
    expect((await store.get(bigName))!.bytes).toEqual(big);
    // a short file under the real name (written by something non-atomic) is replaced whole
    await writeFile(join(dir, name), data.subarray(0, 10));
    await store.put(data, "webp", "image/webp");
    expect((await store.get(name))!.bytes).toEqual(data);
  });

  test("names are validated strictly: never a path, uppercase or an unknown extension", async () => {
    const dir = await tempDir();
    const store = createMediaStore({ dir: join(dir, "media"), apiBaseUrl: "http://localhost:3000", ipfsGateway: "https://ipfs.io/ipfs/" });
    const { name, sha256 } = await store.put(bytes("GIF89a pretend"), "gif", "image/gif");
    await writeFile(join(dir, "secret.png"), "outside the media dir");
    await writeFile(join(dir, "media", `${sha256}.html`), "<script>alert(1)</script>");
    for (const bad of ["../secret.png", `../media/${name}`, `${sha256.toUpperCase()}.gif`, `${sha256}.GIF`, `${sha256}.html`, `${sha256}.svg`, `${sha256}`, `${sha256.slice(1)}.gif`, `${sha256}0.gif`, `${sha256}.gif/`, `/${name}`, `${name}\0`, ""])
      expect(await store.get(bad), bad).toBeNull();
    expect(await store.get(name)).not.toBeNull();
    await expect(store.put(bytes("<svg/>"), "svg", "image/svg+xml")).rejects.toThrow("unknown extension");
    await expect(store.put(bytes("x"), "../x", "image/png")).rejects.toThrow("unknown extension");
  });
});

describe("media store (pinned to IPFS)", () => {
  test("pins through pinFileToIPFS with a bearer token; url is the gateway's; a local copy stays", async () => {
    const dir = await tempDir();
    let calls = 0;
    const countingFetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      calls++;
      return fetch(input, init);
    }) as typeof fetch;
    const store = createMediaStore({ dir, apiBaseUrl: "http://localhost:3000", pin: { url: pinUrl, token: "pinata-jwt-123" }, ipfsGateway: "https://gateway.example/ipfs/", fetch: countingFetch });
    const data = bytes("\xff\xd8\xff pretend jpeg");
    pinned.length = 0;
    const stored = await store.put(data, "jpg", "image/jpeg");
    expect(calls).toBe(1);
    expect(pinned).toHaveLength(1);
    expect(pinned[0]!.authorization).toBe("Bearer pinata-jwt-123");
    expect(pinned[0]!.fileBytes).toEqual(data);
    expect(pinned[0]!.fileName).toBe(`${sha(data)}.jpg`);
    expect(pinned[0]!.fileType).toBe("image/jpeg");
    expect(JSON.parse(pinned[0]!.metadata!)).toEqual({ name: `${sha(data)}.jpg` });
    const cid = "bafkrei" + sha(data).slice(0, 40);
    expect(stored).toEqual({ name: `${sha(data)}.jpg`, url: `https://gateway.example/ipfs/${cid}`, sha256: sha(data) });
    expect(await store.put(data, "jpg", "image/jpeg")).toEqual(stored);
    expect((await store.get(stored.name))!.bytes).toEqual(data);

    const noToken = createMediaStore({ dir, apiBaseUrl: "http://localhost:3000", pin: { url: pinUrl, token: null }, ipfsGateway: "https://gateway.example/ipfs/" });
    await noToken.put(data, "jpg", "image/jpeg");
    expect(pinned.at(-1)!.authorization).toBeNull();
  });

  test("a failing pinning service is a PinningError", async () => {
    const dir = await tempDir();
    const storeAt = (url: string) => createMediaStore({ dir, apiBaseUrl: "http://localhost:3000", pin: { url, token: "pinata-jwt-123" }, ipfsGateway: "https://ipfs.io/ipfs/" });
    const data = bytes("GIF89a another");
    const fail = storeAt(`http://127.0.0.1:${pinataDouble.port}/fail`).put(data, "gif", "image/gif");
    await expect(fail).rejects.toBeInstanceOf(PinningError);
    await expect(fail).rejects.toThrow("answered 500");
    await expect(storeAt(`http://127.0.0.1:${pinataDouble.port}/garbage`).put(data, "gif", "image/gif")).rejects.toBeInstanceOf(PinningError);
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const closedPort = closed.port;
    closed.stop(true);
    await expect(storeAt(`http://127.0.0.1:${closedPort}/pin`).put(data, "gif", "image/gif")).rejects.toBeInstanceOf(PinningError);
  });
});
