/**
 * Images and descriptions of the simulator's coins. Their metadata URIs
 * (`https://sim.agentcoin.invalid/coins/<index>.json`, world.ts) point nowhere, so the
 * demo resolves them here instead of over the network: a description written from the
 * coin's index and an identicon PNG (a mirrored 5×5 grid, like a code host's default
 * avatar) stored in the media store, so `imageUrl` is a link this API really serves.
 * Deterministic: the same coin always gets the same picture and words.
 */
import { deflateSync } from "node:zlib";
import type { MediaStore } from "../../infra/media-store";
import { Rng } from "./random";

const URI = /^https:\/\/sim\.agentcoin\.invalid\/coins\/(\d+)\.json$/;

const OPENINGS = ["A simulated agent coin", "An agent born on the simulated chain", "A demo coin with an agent behind it"];
const HABITS = [
  "that reads prediction markets and posts its calls",
  "that trades the curve it lives on and explains each move",
  "that writes lore about its holders every morning",
  "that runs contests and pays the winners from its vault",
  "that follows one stock and argues with the analysts",
  "that buys back its own coin when the mood is right",
];
const CLOSINGS = ["Nothing here is real money.", "Every trade you see was played by the simulator.", "Seeded, so it tells the same story every run."];

/** The simulator coin's index, or null when `uri` is not a simulator URI. */
export function simulatedCoinIndex(uri: string): number | null {
  const m = URI.exec(uri);
  return m ? Number(m[1]) : null;
}

export function simulatedDescription(index: number): string {
  const rng = new Rng(0x5eed0000 + index);
  return `${rng.pick(OPENINGS)} ${rng.pick(HABITS)}. ${rng.pick(CLOSINGS)}`;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)) >>> 0);
  return out;
}

/** A 96×96 RGB PNG: a 5×5 grid mirrored left to right on a light background, 8 px margin. */
export function identiconPng(index: number): Uint8Array {
  const rng = new Rng(0x1c0e0000 + index);
  const hue = rng.int(360);
  const [r, g, b] = hslToRgb(hue, 0.55, 0.5);
  const cells = Array.from({ length: 5 }, () => Array.from({ length: 3 }, () => rng.int(2) === 1));
  const size = 96, cell = 16, margin = 8;
  const raw = new Uint8Array(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 3); // filter byte 0 (none), then RGB
    for (let x = 0; x < size; x++) {
      const cx = Math.floor((x - margin) / cell), cy = Math.floor((y - margin) / cell);
      const inside = x >= margin && y >= margin && cx < 5 && cy < 5;
      const on = inside && cells[cy]![cx < 3 ? cx : 4 - cx]!;
      raw.set(on ? [r, g, b] : [240, 240, 240], row + 1 + x * 3);
    }
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, size);
  v.setUint32(4, size);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no interlace
  const parts = [Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), chunk("IHDR", ihdr), chunk("IDAT", new Uint8Array(deflateSync(raw))), chunk("IEND", new Uint8Array(0))];
  return new Uint8Array(Buffer.concat(parts));
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)))));
  return [f(0), f(8), f(4)];
}

/**
 * The metadata resolver of the demo, in place of the network fetch of real coins: the
 * same job (pipelines/metadata.ts refreshCoinMetadata) writes what it returns to the agent.
 */
export function simulatedMetadataResolver(media: MediaStore) {
  return async (uri: string): Promise<{ imageUrl: string; description: string }> => {
    const index = simulatedCoinIndex(uri);
    if (index === null) throw new Error("not a simulator coin URI");
    const image = await media.put(identiconPng(index), "png", "image/png");
    return { imageUrl: image.url, description: simulatedDescription(index) };
  };
}
