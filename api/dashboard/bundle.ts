/**
 * The dashboard page (web/dashboard/) made servable: its TypeScript bundled for the browser
 * with Bun.build (lightweight-charts from node_modules, nothing from a CDN), its stylesheet,
 * and the HTML naming both by content hash, so the assets can be cached forever and a new
 * build is never mixed with an old one. Built once, on the first request, and kept; a build
 * that fails is not kept, and says exactly what failed.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

export const DASHBOARD_DIR = join(import.meta.dir, "..", "..", "web", "dashboard");
export const ASSET_PREFIX = "/dashboard/assets/";

export type Asset = { body: string; type: string };
export type DashboardBuild = { html: string; assets: Map<string, Asset> };

export class DashboardBuildError extends Error {}

const hashed = (stem: string, body: string, ext: string) => `${stem}-${createHash("sha256").update(body).digest("hex").slice(0, 16)}.${ext}`;

/** Bundles `dir` (src/main.ts, style.css, index.html with `{{script}}` and `{{style}}`). */
export async function buildDashboard(dir = DASHBOARD_DIR): Promise<DashboardBuild> {
  const entry = join(dir, "src", "main.ts");
  const [css, template] = await Promise.all([readFile(join(dir, "style.css"), "utf8"), readFile(join(dir, "index.html"), "utf8")]).catch((e: Error) => {
    throw new DashboardBuildError(`reading the dashboard page under ${dir} failed: ${e.message}`);
  });
  for (const slot of ["{{script}}", "{{style}}"]) if (!template.includes(slot)) throw new DashboardBuildError(`${join(dir, "index.html")} has no ${slot}`);
  let result: Awaited<ReturnType<typeof Bun.build>>;
  try {
    // NODE_ENV production: Bun then resolves the libraries' "production" exports (lightweight-charts'
    // "development" build, chosen otherwise, is twice the size, with checks), whatever the process's NODE_ENV
    result = await Bun.build({ entrypoints: [entry], target: "browser", format: "esm", minify: true, sourcemap: "none", define: { "process.env.NODE_ENV": '"production"' }, throw: false });
  } catch (e) {
    throw new DashboardBuildError(`bundling ${entry} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!result.success) throw new DashboardBuildError(`bundling ${entry} failed:\n${result.logs.map((l) => String(l)).join("\n")}`);
  const script = result.outputs.find((o) => o.kind === "entry-point");
  if (!script) throw new DashboardBuildError(`bundling ${entry} gave no script`);
  const js = await script.text();
  const jsName = hashed("dashboard", js, "js");
  const cssName = hashed("dashboard", css, "css");
  return {
    html: template.replace("{{script}}", ASSET_PREFIX + jsName).replace("{{style}}", ASSET_PREFIX + cssName),
    assets: new Map([
      [jsName, { body: js, type: "text/javascript; charset=utf-8" }],
      [cssName, { body: css, type: "text/css; charset=utf-8" }],
    ]),
  };
}

/** The build, made once: concurrent first requests share it; a failed build is dropped, so the next request tries again. */
export function onceBuilt(build: () => Promise<DashboardBuild>): () => Promise<DashboardBuild> {
  let current: Promise<DashboardBuild> | null = null;
  return () =>
    (current ??= build().catch((e) => {
      current = null;
      throw e;
    }));
}
