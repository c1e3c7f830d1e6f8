import { describe, expect, test } from "bun:test";
import { inflateSync } from "node:zlib";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMediaStore } from "../../infra/media-store";
import { coinMetadata } from "./world";
import { Rng } from "./random";
import { identiconPng, simulatedCoinIndex, simulatedDescription, simulatedMetadataResolver } from "./coin-media";

/** Checks a PNG chunk by chunk (lengths, CRCs), returns its size and inflated pixel data. */
function readPng(png: Uint8Array): { width: number; height: number; pixels: Uint8Array } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let o = 8, width = 0, height = 0;
  const idat: Uint8Array[] = [];
  for (;;) {
    const len = view.getUint32(o);
    const type = new TextDecoder().decode(png.subarray(o + 4, o + 8));
    expect(view.getUint32(o + 8 + len)).toBe(Bun.hash.crc32(png.subarray(o + 4, o + 8 + len)) >>> 0);
    if (type === "IHDR") [width, height] = [view.getUint32(o + 8), view.getUint32(o + 12)];
    if (type === "IDAT") idat.push(png.subarray(o + 8, o + 8 + len));
    o += 12 + len;
    if (type === "IEND") break;
  }
  expect(o).toBe(png.length);
  return { width, height, pixels: new Uint8Array(inflateSync(Buffer.concat(idat))) };
}

describe("the simulator's coin images and descriptions", () => {
  test("an identicon is a valid 96×96 RGB PNG, the same for the same coin, different for others", () => {
    const png = identiconPng(3);
    const { width, height, pixels } = readPng(png);
    expect([width, height]).toEqual([96, 96]);
    expect(pixels.length).toBe(96 * (1 + 96 * 3));
    expect(identiconPng(3)).toEqual(png);
    expect(identiconPng(4)).not.toEqual(png);
  });

  test("descriptions: deterministic, printable, within the spec's 500 characters", () => {
    for (let i = 0; i < 50; i++) {
      const d = simulatedDescription(i);
      expect(d).toBe(simulatedDescription(i));
      expect(d.length).toBeGreaterThan(20);
      expect(d.length).toBeLessThanOrEqual(500);
    }
  });

  test("the resolver answers the simulator's URIs with an image stored in the media store, and refuses others", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-coin-media-"));
    try {
      const media = createMediaStore({ dir, apiBaseUrl: "http://localhost:4321", ipfsGateway: "https://ipfs.io/ipfs/" });
      const { uri } = coinMetadata(new Rng(1), 12);
      expect(simulatedCoinIndex(uri)).toBe(12);
      const meta = await simulatedMetadataResolver(media)(uri);
      expect(meta.description).toBe(simulatedDescription(12));
      expect(meta.imageUrl).toMatch(/^http:\/\/localhost:4321\/v1\/media\/[0-9a-f]{64}\.png$/);
      const stored = await media.get(meta.imageUrl.split("/").pop()!);
      expect(stored).toEqual({ bytes: identiconPng(12), mime: "image/png" });
      await expect(simulatedMetadataResolver(media)("https://example.com/coin.json")).rejects.toThrow("not a simulator coin URI");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
