/**
 * A launch's image and token metadata: the image downloaded and checked, both stored
 * content-addressed (served by this API, or pinned to IPFS when configured). The
 * metadata JSON follows the Metaplex token-metadata standard wallets read.
 */
import type { MediaStore } from "../../infra/media-store";
import { fetchLaunchImage } from "./image";
import type { CreateRequest } from "./model";

/** `beforeStoring` runs once the image is checked (its refusals come first) and may refuse the rest, e.g. no signer. */
export async function prepareLaunchMedia(
  r: CreateRequest,
  store: MediaStore,
  opts: { allowLoopback: boolean; beforeStoring?: () => void },
): Promise<{ image_url: string; metadata_uri: string }> {
  const image = await fetchLaunchImage(r.image.url, { allowLoopback: opts.allowLoopback });
  opts.beforeStoring?.();
  const stored = await store.put(image.bytes, image.ext, image.mime);
  const links = r.links ?? {};
  const metadata = {
    name: r.name,
    symbol: r.symbol,
    description: r.description,
    image: stored.url,
    ...(links.website ? { external_url: links.website } : {}),
    extensions: links,
    properties: { files: [{ uri: stored.url, type: image.mime }], category: "image" },
  };
  const json = new TextEncoder().encode(JSON.stringify(metadata));
  const meta = await store.put(json, "json", "application/json");
  return { image_url: stored.url, metadata_uri: meta.url };
}
