/**
 * GET /v1/media/:name through the real error handler, on a media store in a temp dir.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorHandler } from "../errors";
import { createLogger } from "../../infra/log";
import { createMediaStore } from "../../infra/media-store";
import { mediaRoutes } from ".";
import { png } from "../launches/testdata/images";

const dir = await mkdtemp(join(tmpdir(), "media-route-"));
afterAll(() => rm(dir, { recursive: true, force: true }));
const store = createMediaStore({ dir, apiBaseUrl: "http://localhost", ipfsGateway: "https://ipfs.io/ipfs/" });
const app = new Elysia().use(errorHandler(createLogger("error", {}, () => {}))).use(mediaRoutes(store)).get("/other", () => "other");
const get = (path: string) => app.handle(new Request(`http://localhost${path}`));

describe("GET /v1/media/:name", () => {
  test("200 with the bytes, type and caching headers", async () => {
    const image = png(20, 20);
    const stored = await store.put(image, "png", "image/png");
    expect(stored.url).toBe(`http://localhost/v1/media/${stored.name}`);
    const res = await get(new URL(stored.url).pathname);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(image);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("etag")).toBe(`"${stored.sha256}"`);

    const json = await store.put(new TextEncoder().encode('{"name":"coin"}'), "json", "application/json");
    const meta = await get(`/v1/media/${json.name}`);
    expect(meta.headers.get("content-type")).toBe("application/json");
    expect(await meta.json()).toEqual({ name: "coin" });
  });

  test("404 NOT_FOUND for unknown or invalid names, never a file outside the store", async () => {
    await writeFile(join(dir, "..", "media-route-secret.txt"), "secret");
    const sha = "ab".repeat(32);
    for (const path of [`/v1/media/${sha}.png`, `/v1/media/${sha.toUpperCase()}.png`, `/v1/media/${sha}.svg`, "/v1/media/..%2Fmedia-route-secret.txt", "/v1/media/%2e%2e%2fmedia-route-secret.txt", "/v1/media/x"]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect((await res.json()).error.code).toBe("NOT_FOUND");
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
    }
    await rm(join(dir, "..", "media-route-secret.txt"));
    // the CORS header stays on this route: other routes are untouched
    expect((await get("/other")).headers.get("access-control-allow-origin")).toBeNull();
  });
});
