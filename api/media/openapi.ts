/**
 * Stored media in the OpenAPI document (api/openapi): content-addressed files (launch
 * images, coin metadata), cacheable forever.
 */
import * as v from "valibot";
import type { RouteDoc } from "../openapi/route";
import { MEDIA_MIME } from "../../infra/media-store";

/** The path of GET /v1/media/:name; a name that is not one the store gives out is a 404 (the store checks it). */
export const MediaPath = v.object({
  name: v.pipe(v.string(), v.metadata({ description: "the file's sha256 (64 hex digits) and its extension", examples: ["3f2c9b0e5a1d4c7b8e6f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d.png"] })),
});

export const mediaRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/media/:name", operationId: "getMedia", tag: "Media", summary: "A stored file (launch image, coin metadata)",
    params: MediaPath,
    responses: {
      200: {
        description: "the file; `Cache-Control: public, max-age=31536000, immutable`",
        contentTypes: Object.fromEntries(Object.entries(MEDIA_MIME).map(([ext, mime]) => [mime, `a .${ext} file`])),
      },
    },
    errors: { 404: ["NOT_FOUND"] },
  },
];
