/**
 * Stored media: GET /v1/media/:name serves a content-addressed file of the media store
 * (launch images, coin metadata JSON). A name is its content's sha256, so answers are
 * cacheable forever; any origin may read them.
 */
import { Elysia } from "elysia";
import { notFound } from "../errors";
import type { MediaStore } from "../../infra/media-store";

const CORS = { "access-control-allow-origin": "*" };

export const mediaRoutes = (store: MediaStore) =>
  new Elysia({ prefix: "/v1/media" })
    .onRequest(({ request, set }) => {
      if (new URL(request.url).pathname.startsWith("/v1/media/")) Object.assign(set.headers, CORS);
    })
    .get("/:name", async ({ params }) => {
      const media = await store.get(params.name);
      if (!media) throw notFound(`no stored media named ${JSON.stringify(params.name.slice(0, 80))}`);
      return new Response(media.bytes as Uint8Array<ArrayBuffer>, { // read from a file: never a SharedArrayBuffer
        headers: {
          "content-type": media.mime,
          "content-length": String(media.bytes.length),
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
          etag: `"${params.name.slice(0, 64)}"`,
          ...CORS,
        },
      });
    });
