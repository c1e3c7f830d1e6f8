/**
 * GET /dashboard: the analytics and tokenomics page (web/dashboard/), and its two assets under
 * /dashboard/assets/. The page reads only the public APIs, from the browser.
 */
import { Elysia } from "elysia";
import { ApiError, notFound } from "../errors";
import type { Logger } from "../../infra/log";
import { buildDashboard, onceBuilt, type DashboardBuild } from "./bundle";

/**
 * What the page may do: its own script, stylesheet and API reads; images as data (none yet);
 * no frames, no other origin. A CDN or inline script would be refused by the browser.
 */
const PAGE_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

export type DashboardRouteDeps = { log: Logger; build?: () => Promise<DashboardBuild> };

export function dashboardRoutes(deps: DashboardRouteDeps) {
  const built = onceBuilt(deps.build ?? (() => buildDashboard()));
  const page = async () => {
    try {
      return await built();
    } catch (e) {
      deps.log.error("the dashboard page could not be built", { err: e as Error });
      throw new ApiError(500, "INTERNAL", "the dashboard page could not be built; the service log has the bundler's messages");
    }
  };
  return new Elysia()
    .get("/dashboard", async () => new Response((await page()).html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", ...PAGE_HEADERS } }))
    .get("/dashboard/assets/:name", async ({ params }) => {
      const asset = (await page()).assets.get(params.name);
      if (!asset) throw notFound(`no dashboard asset named ${JSON.stringify(params.name.slice(0, 80))}`);
      return new Response(asset.body, { headers: { "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" } });
    });
}
