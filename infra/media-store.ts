/**
 * Content-addressed media (launch images, coin metadata): a file is named
 * sha256(bytes) hex + "." + ext, so storing the same bytes twice is a no-op and a name
 * never changes meaning. Always kept under `dir` (served by GET /v1/media/:name);
 * written to a temp file, fsynced and renamed, so a crash never leaves a partial file
 * under a real name. With `pin`, also pinned to IPFS through a Pinata-compatible
 * pinFileToIPFS endpoint, and the public url is the gateway's.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";

export type StoredMedia = { name: string; url: string; sha256: string };
export type MediaStore = {
  /** Idempotent: the same bytes give the same name and url. */
  put(bytes: Uint8Array, ext: string, mime: string): Promise<StoredMedia>;
  /** The local copy, or null; a name that is not 64 hex + "." + a known ext is null too (never a path). */
  get(name: string): Promise<{ bytes: Uint8Array; mime: string } | null>;
};

/** Pinning failed (unreachable, non-2xx, or no IpfsHash in the answer); map to 502 UPSTREAM_ERROR. */
export class PinningError extends Error {}

export const MEDIA_MIME: Record<string, string> = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", webp: "image/webp", json: "application/json" };
const NAME = /^[0-9a-f]{64}\.(png|jpg|gif|webp|json)$/;
export const isMediaName = (name: string) => NAME.test(name);

const PIN_TIMEOUT_MS = 30_000;

async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${path}.${randomUUID()}.tmp`;
  const file = await open(tmp, "wx");
  try {
    await file.writeFile(bytes);
    await file.sync();
  } catch (err) {
    await file.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await file.close();
  await rename(tmp, path).catch(async (err) => {
    await unlink(tmp).catch(() => {});
    throw err;
  });
}

async function pinFile(pin: { url: string; token: string | null }, doFetch: typeof fetch, bytes: Uint8Array, name: string, mime: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)], { type: mime }), name);
  form.append("pinataMetadata", JSON.stringify({ name }));
  form.append("pinataOptions", JSON.stringify({ cidVersion: 1 }));
  let res: Response;
  try {
    res = await doFetch(pin.url, { method: "POST", body: form, headers: pin.token ? { authorization: `Bearer ${pin.token}` } : {}, signal: AbortSignal.timeout(PIN_TIMEOUT_MS) });
  } catch (err) {
    throw new PinningError(`the IPFS pinning service is unreachable: ${(err as Error).message}`);
  }
  const text = await res.text().catch(() => "");
  if (!res.ok) throw new PinningError(`the IPFS pinning service answered ${res.status}: ${text.slice(0, 200)}`);
  let cid: unknown;
  try {
    cid = (JSON.parse(text) as { IpfsHash?: unknown }).IpfsHash;
  } catch {
    throw new PinningError("the IPFS pinning service answered something that is not JSON");
  }
  if (typeof cid !== "string" || !/^[A-Za-z0-9]{10,100}$/.test(cid)) throw new PinningError("the IPFS pinning service answered without a valid IpfsHash");
  return cid;
}

export function createMediaStore(opts: { dir: string; apiBaseUrl: string; pin?: { url: string; token: string | null } | null; ipfsGateway: string; fetch?: typeof fetch }): MediaStore {
  const apiBase = opts.apiBaseUrl.replace(/\/+$/, "");
  const gateway = opts.ipfsGateway.endsWith("/") ? opts.ipfsGateway : `${opts.ipfsGateway}/`;
  const doFetch = opts.fetch ?? fetch;

  return {
    async put(bytes, ext, mime) {
      if (!(ext in MEDIA_MIME)) throw new Error(`media store: unknown extension ${JSON.stringify(ext)}`);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      const name = `${sha256}.${ext}`;
      const path = join(opts.dir, name);
      await mkdir(opts.dir, { recursive: true });
      const exists = await stat(path).then((s) => s.size === bytes.length, () => false);
      if (!exists) await writeAtomically(path, bytes);
      if (!opts.pin) return { name, url: `${apiBase}/v1/media/${name}`, sha256 };
      const cid = await pinFile(opts.pin, doFetch, bytes, name, mime);
      return { name, url: `${gateway}${cid}`, sha256 };
    },

    async get(name) {
      if (!isMediaName(name)) return null;
      const ext = name.slice(65);
      try {
        return { bytes: new Uint8Array(await readFile(join(opts.dir, name))), mime: MEDIA_MIME[ext]! };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
  };
}
