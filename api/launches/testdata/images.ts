/**
 * Test images built on the fly: real, decodable files of any size in each launch
 * format (checked with pngtopnm, djpeg, giftopnm and dwebp when written). Each is a
 * flat colour, which keeps every encoder a few lines: PNG (zlib rows), baseline JPEG
 * (grey, one-code Huffman tables), GIF (3-bit LZW with a clear code every 2 pixels)
 * and lossless WebP (VP8L with single-symbol prefix codes, so pixels cost 0 bits).
 */
import { deflateSync } from "node:zlib";

const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const le16 = (n: number) => [n & 255, (n >> 8) & 255];
const le32 = (n: number) => [...le16(n & 0xffff), ...le16(n >>> 16)];
const bytes = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** A PNG; with `totalBytes`, padded to exactly that size by a private ancillary chunk (ignored by decoders). */
export function png(width: number, height: number, totalBytes?: number): Uint8Array<ArrayBuffer> {
  const chunk = (type: string, data: Uint8Array | number[]) => {
    const body = Uint8Array.from([...bytes(type), ...data]);
    return [...be32(data.length), ...body, ...be32(Bun.hash.crc32(body))];
  };
  const rows = new Uint8Array(height * (1 + width * 3)); // filter 0, black RGB pixels
  const head = [0x89, ...bytes("PNG\r\n\x1a\n"), ...chunk("IHDR", [...be32(width), ...be32(height), 8, 2, 0, 0, 0]), ...chunk("IDAT", deflateSync(rows))];
  const end = chunk("IEND", []);
  if (totalBytes === undefined) return Uint8Array.from([...head, ...end]);
  const padding = totalBytes - head.length - end.length - 12;
  const typeAndData = new Uint8Array(4 + padding); // "prVt" then zeros
  typeAndData.set(bytes("prVt"));
  const out = new Uint8Array(totalBytes);
  out.set(head);
  out.set(be32(padding), head.length);
  out.set(typeAndData, head.length + 4);
  out.set(be32(Bun.hash.crc32(typeAndData)), head.length + 8 + padding);
  out.set(end, totalBytes - end.length);
  return out;
}

export function jpeg(width: number, height: number): Uint8Array<ArrayBuffer> {
  const seg = (marker: number, data: number[]) => [0xff, marker, ...[((data.length + 2) >> 8) & 255, (data.length + 2) & 255], ...data];
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  // each block: DC category 0 ("0") then end-of-block ("0"); pad the last byte with 1s
  const scan = new Uint8Array(Math.ceil((blocks * 2) / 8));
  const pad = scan.length * 8 - blocks * 2;
  if (pad) scan[scan.length - 1] = (1 << pad) - 1;
  const oneCode = (tableClass: number) => [tableClass << 4, 1, ...new Array(15).fill(0), 0];
  return Uint8Array.from([
    0xff, 0xd8,
    ...seg(0xe0, [...bytes("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...seg(0xdb, [0, ...new Array(64).fill(1)]),
    ...seg(0xc0, [8, (height >> 8) & 255, height & 255, (width >> 8) & 255, width & 255, 1, 1, 0x11, 0]),
    ...seg(0xc4, [...oneCode(0), ...oneCode(1)]),
    ...seg(0xda, [1, 1, 0x00, 0, 63, 0]),
    ...scan,
    0xff, 0xd9,
  ]);
}

export function gif(width: number, height: number): Uint8Array<ArrayBuffer> {
  // LZW, minimum code size 2: clear = 4, end = 5; codes stay 3 bits wide because the
  // table is cleared every 2 pixels. Pixel index 0 everywhere.
  const codes: number[] = [];
  for (let left = width * height; left > 0; left -= 2) codes.push(4, ...(left >= 2 ? [0, 0] : [0]));
  codes.push(5);
  const data: number[] = [];
  let acc = 0, nbits = 0;
  for (const c of codes) {
    acc |= c << nbits;
    nbits += 3;
    while (nbits >= 8) { data.push(acc & 255); acc >>= 8; nbits -= 8; }
  }
  if (nbits) data.push(acc & 255);
  const blocks: number[] = [];
  for (let i = 0; i < data.length; i += 255) blocks.push(Math.min(255, data.length - i), ...data.slice(i, i + 255));
  return Uint8Array.from([
    ...bytes("GIF89a"), ...le16(width), ...le16(height), 0x80, 0, 0,
    0, 0, 0, 255, 255, 255, // global colour table: black, white
    0x2c, 0, 0, 0, 0, ...le16(width), ...le16(height), 0,
    2, ...blocks, 0,
    0x3b,
  ]);
}

export function webp(width: number, height: number): Uint8Array<ArrayBuffer> {
  // VP8L bit stream, least significant bit first
  const bits: [number, number][] = [[0x2f, 8], [width - 1, 14], [height - 1, 14], [0, 1], [0, 3], [0, 1], [0, 1], [0, 1]];
  // five prefix codes (green, red, blue, alpha, distance), each "simple" with one 1-bit symbol 0
  for (let i = 0; i < 5; i++) bits.push([1, 1], [0, 1], [0, 1], [0, 1]);
  const out: number[] = [];
  let acc = 0, nbits = 0;
  for (const [value, n] of bits) {
    for (let i = 0; i < n; i++) {
      acc |= ((value >>> i) & 1) << nbits++;
      if (nbits === 8) { out.push(acc); acc = 0; nbits = 0; }
    }
  }
  if (nbits) out.push(acc);
  if (out.length % 2) out.push(0);
  return Uint8Array.from([...bytes("RIFF"), ...le32(4 + 8 + out.length), ...bytes("WEBPVP8L"), ...le32(out.length), ...out]);
}
