/**
 * The launch image (`image.url` of POST /v1/launches): downloaded through safeFetch
 * (public https only, re-checked after redirects, reading stops at 5 MB), then judged
 * by its bytes (PNG, JPEG, GIF or WebP; the content-type header is ignored) and its
 * dimensions (16-4096 px a side). Every failure is a 400 with an IMAGE_* code.
 */
import { imageSize } from "image-size";
import { ApiError } from "../errors";
import { safeFetch, SafeFetchError } from "../../infra/safe-fetch";

export type LaunchImage = { bytes: Uint8Array; mime: "image/png" | "image/jpeg" | "image/gif" | "image/webp"; ext: "png" | "jpg" | "gif" | "webp"; width: number; height: number };

export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const IMAGE_MIN_SIDE = 16;
export const IMAGE_MAX_SIDE = 4096;

const MIME = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", webp: "image/webp" } as const;
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** The format named by the file's magic bytes, or null. */
function sniff(b: Uint8Array): LaunchImage["ext"] | null {
  if (b.length >= 8 && b[0] === 0x89 && ascii(b, 1, 8) === "PNG\r\n\x1a\n") return "png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpg";
  if (b.length >= 6 && (ascii(b, 0, 6) === "GIF87a" || ascii(b, 0, 6) === "GIF89a")) return "gif";
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return "webp";
  return null;
}

/** A short, safe description of what the bytes start with, for the error message. */
function describeStart(b: Uint8Array): string {
  const head = b.subarray(0, 24);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(head).trimStart();
  if (b.length === 0) return "the file is empty";
  if (/^[\x20-\x7e\s]+$/.test(text)) return `it starts with text ${JSON.stringify(text.slice(0, 16))}`;
  return `it starts with bytes ${Buffer.from(head.subarray(0, 8)).toString("hex")}`;
}

const refused = (why: string) => new ApiError(400, "IMAGE_URL_REFUSED", `image.url is refused: ${why}; give a public https:// link`);
const notAnImage = (why: string) => new ApiError(400, "IMAGE_NOT_AN_IMAGE", `image.url is not a usable image: ${why}`);

/** Downloads and checks a launch image; throws ApiError 400 IMAGE_URL_REFUSED | IMAGE_TOO_LARGE | IMAGE_NOT_AN_IMAGE | IMAGE_UNREACHABLE. */
export async function fetchLaunchImage(url: string, opts: { allowLoopback: boolean; timeoutMs?: number }): Promise<LaunchImage> {
  // The scheme is checked before any DNS lookup (safeFetch resolves first), so file:, data:, ftp:
  // and http: to a public host are refused as such. http: stays possible for loopback test doubles only.
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refused("it is not a URL");
  }
  if (parsed.protocol !== "https:" && !(opts.allowLoopback && parsed.protocol === "http:")) throw refused(`the scheme is ${parsed.protocol.replace(/:$/, "")}, not https`);

  let bytes: Uint8Array;
  try {
    ({ bytes } = await safeFetch(url, { maxBytes: IMAGE_MAX_BYTES, timeoutMs: opts.timeoutMs ?? 10_000, allowLoopback: opts.allowLoopback }));
  } catch (err) {
    if (!(err instanceof SafeFetchError)) throw err;
    // err.message is the same whatever happened on the network (err.detail is not for clients: it tells which internal ports answer).
    if (err.code === "REFUSED") throw refused("it is not a public https:// address");
    if (err.code === "TOO_LARGE") throw new ApiError(400, "IMAGE_TOO_LARGE", "the image is over the 5 MB limit");
    throw new ApiError(400, "IMAGE_UNREACHABLE", "the image URL could not be fetched; check that it is public and answers");
  }

  const ext = sniff(bytes);
  if (!ext) throw notAnImage(`not a PNG, JPEG, GIF or WebP file (${describeStart(bytes)}, ${bytes.length} bytes)`);
  let size: { width: number; height: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch (err) {
    throw notAnImage(`its ${ext.toUpperCase()} dimensions cannot be read (${(err as Error).message})`);
  }
  const { width, height } = size;
  if (size.type !== ext || !Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0)
    throw notAnImage(`its ${ext.toUpperCase()} dimensions cannot be read`);
  if ([width, height].some((side) => side < IMAGE_MIN_SIDE || side > IMAGE_MAX_SIDE))
    throw notAnImage(`it is ${width}x${height} px; each side must be ${IMAGE_MIN_SIDE}-${IMAGE_MAX_SIDE} px`);
  return { bytes, mime: MIME[ext], ext, width, height };
}
