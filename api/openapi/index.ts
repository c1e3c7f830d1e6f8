/**
 * The API's contract, served: GET /v1/openapi.json (OpenAPI 3.1, made from every
 * feature's route descriptions: features.ts) and GET /docs, a browsable reference
 * (Swagger UI from the swagger-ui-dist package, served from node_modules: no CDN).
 */
import { Elysia } from "elysia";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import pkg from "../../package.json";
import { openApiDocument } from "./document";
import { FEATURES, namedSchemas } from "./features";
import { docsPage, DOCS_INIT_SCRIPT } from "./docs-page";

export const OPENAPI_PATH = "/v1/openapi.json";

const DESCRIPTION = `The Agent Coin Platform's HTTP API: the public **Data API** (\`/v1/public\`), the Application API's public reads and
signed-in routes (\`/v1\`, wallet sign-in at \`/v1/auth\`), the server-to-server **Launch API** (\`/v1/launches\`) and the
Helius webhook. Every error is \`{ error: { code, message, details? } }\`; each operation lists its codes. Lists are
\`{ items, nextCursor }\`: pass \`nextCursor\` as \`cursor\` for the next page. Lamports and atoms are decimal strings.
A typed TypeScript client made from this document is in the repository's \`client/\` folder.`;

/** The document every route describes (the same whichever features this process serves). */
export function platformOpenApi() {
  return openApiDocument(FEATURES.flatMap((f) => f.routes), namedSchemas(), { title: "Agent Coin Platform API", version: pkg.version, description: DESCRIPTION });
}

/** Files of swagger-ui-dist the page loads, by the name it asks for. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};
const assetDir = () => dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

export const openApiRoutes = () => {
  let json: string | null = null;
  const document = () => (json ??= JSON.stringify(platformOpenApi()));
  return new Elysia()
    .get(OPENAPI_PATH, () => new Response(document(), { headers: { "content-type": "application/json", "access-control-allow-origin": "*", "cache-control": "public, max-age=60" } }))
    .get("/docs", () => new Response(docsPage(), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "public, max-age=60" } }))
    .get("/docs/init.js", () => new Response(DOCS_INIT_SCRIPT(OPENAPI_PATH), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=60" } }))
    .get("/docs/assets/:file", ({ params }) => {
      const type = ASSETS[params.file];
      if (!type) return new Response("not found", { status: 404 });
      return new Response(Bun.file(join(assetDir(), params.file)), { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
    });
};
