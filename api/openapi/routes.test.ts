/**
 * GET /v1/openapi.json and the reference page /docs, served by the app itself: the page
 * loads only the app's own files (Swagger UI from the swagger-ui-dist package), no CDN.
 */
import { describe, expect, test } from "bun:test";
import { openApiRoutes, platformOpenApi } from "./index";

const app = openApiRoutes();
const get = (path: string) => app.handle(new Request(`http://local${path}`));

describe("the document and its page", () => {
  test("/v1/openapi.json is the document, readable from any origin", async () => {
    const res = await get("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(platformOpenApi())));
  });

  test("/docs loads Swagger UI from the app's own paths, and starts it on the document", async () => {
    const page = await (await get("/docs")).text();
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.sort()).toEqual(["/docs/assets/favicon-32x32.png", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/docs/init.js"]);
    expect(page).not.toMatch(/https?:\/\//);
    const init = await (await get("/docs/init.js")).text();
    expect(init).toContain('url: "/v1/openapi.json"');
    for (const src of sources) {
      const res = await get(src);
      expect({ src, status: res.status }).toEqual({ src, status: 200 });
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await get("/docs/assets/swagger-ui-bundle.js")).headers.get("content-type")).toStartWith("text/javascript");
    const bundle = await (await get("/docs/assets/swagger-ui-bundle.js")).text();
    expect(bundle).toContain("SwaggerUIBundle");
  });

  test("no other file of the package is served", async () => {
    for (const name of ["package.json", "..%2F..%2Fpackage.json", "index.html", "swagger-ui.js.map"]) expect((await get(`/docs/assets/${name}`)).status).toBe(404);
  });
});
