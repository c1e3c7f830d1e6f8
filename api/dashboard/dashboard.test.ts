/**
 * The dashboard routes without engines: the real bundle of web/dashboard served with its headers,
 * nothing fetched from another origin, and a bundle that fails answered loudly (500, the
 * bundler's messages in the log) and tried again on the next request.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { errorHandler } from "../errors";
import { createLogger } from "../../infra/log";
import { buildDashboard, DASHBOARD_DIR, DashboardBuildError, onceBuilt, type DashboardBuild } from "./bundle";
import { dashboardRoutes } from ".";

function appWith(build?: () => Promise<DashboardBuild>) {
  const lines: string[] = [];
  const log = createLogger("error", {}, (line) => void lines.push(line));
  const app = new Elysia().use(errorHandler(log)).use(dashboardRoutes({ log, build }));
  return { get: (path: string) => app.handle(new Request(`http://local${path}`)), lines };
}

/** A copy of web/dashboard whose entry imports something that does not exist. */
function brokenCopy() {
  const dir = mkdtempSync(join(tmpdir(), "acp-dashboard-"));
  cpSync(DASHBOARD_DIR, dir, { recursive: true, filter: (src) => !src.endsWith(".test.ts") });
  writeFileSync(join(dir, "src", "main.ts"), 'import { nothing } from "./no-such-module";\nconsole.log(nothing);\n');
  return dir;
}

describe("GET /dashboard", () => {
  test("the page names its two assets by content hash; each is served with its type, cached for good", async () => {
    const { get } = appWith();
    const page = await get("/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'");
    const html = await page.text();
    const script = /<script type="module" src="(\/dashboard\/assets\/dashboard-[0-9a-f]{16}\.js)"><\/script>/.exec(html)?.[1];
    const style = /<link rel="stylesheet" href="(\/dashboard\/assets\/dashboard-[0-9a-f]{16}\.css)">/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    // nothing from another origin: every src and stylesheet is ours (the one outside link is the charts' attribution)
    expect([...html.matchAll(/(?:src|href)="(https?:[^"]*)"/g)].map((m) => m[1])).toEqual(["https://www.tradingview.com/"]);

    const js = await get(script!);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const code = await js.text();
    expect(code).toContain("/v1/analytics/overview?range=");
    expect(code).not.toMatch(/\bimport\s*\(?\s*["']https?:/); // bundled, not imported from a CDN
    const css = await get(style!);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await css.text()).toContain(".chart");

    expect(await (await get("/dashboard/?range=7d")).text()).toBe(html); // the view's state is the page's own (in the browser)

    const unknown = await get("/dashboard/assets/dashboard-0000000000000000.js");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });

  test("a bundle that fails: 500 saying so, the bundler's messages in the log, and the next request builds again", async () => {
    const dir = brokenCopy();
    try {
      const failure = await buildDashboard(dir).then(
        () => null,
        (e: Error) => e,
      );
      expect(failure).toBeInstanceOf(DashboardBuildError);
      expect(failure!.message).toContain(join(dir, "src", "main.ts"));
      expect(failure!.message).toContain("no-such-module");

      let broken = true;
      const { get, lines } = appWith(() => buildDashboard(broken ? dir : DASHBOARD_DIR));
      const res = await get("/dashboard");
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: { code: "INTERNAL", message: "the dashboard page could not be built; the service log has the bundler's messages" } });
      const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string; err?: { message?: string } });
      expect(logged).toHaveLength(1);
      expect(logged[0]!.msg).toBe("the dashboard page could not be built");
      expect(JSON.stringify(logged[0])).toContain("no-such-module");

      broken = false;
      expect((await get("/dashboard")).status).toBe(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a page without its asset slots is refused by name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-dashboard-"));
    try {
      cpSync(DASHBOARD_DIR, dir, { recursive: true, filter: (src) => !src.endsWith(".test.ts") });
      writeFileSync(join(dir, "index.html"), "<!doctype html><link rel=stylesheet href={{style}}>");
      await expect(buildDashboard(dir)).rejects.toThrow(`${join(dir, "index.html")} has no {{script}}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("built once: concurrent first requests share one build; a failed one is dropped", async () => {
    let calls = 0;
    let fail = true;
    const build = onceBuilt(async () => {
      calls++;
      await Bun.sleep(1);
      if (fail) throw new Error("boom");
      return { html: "", assets: new Map() };
    });
    const first = await Promise.allSettled([build(), build(), build()]);
    expect(first.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(calls).toBe(1);
    fail = false;
    const [a, b] = await Promise.all([build(), build()]);
    expect(a).toBe(b);
    await build();
    expect(calls).toBe(2);
  });
});
