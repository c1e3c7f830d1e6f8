/**
 * Which way the arrows run (README.md "Layout"): imports point down only. Entry points
 * (`main.ts` files) and the composition root (`compose/`) build everything and may
 * import anything; tests may too. Every other file is held to its floor:
 * - `infra/` is the ground floor and imports nothing of the product;
 * - `ingest/` produces the shared contract and imports no later stage;
 * - `pipelines/` uses only `ingest/contract/` of ingest, and nothing above it;
 * - `api/` does not import `agents/`;
 * - `web/` (pages that run in the browser and read only the public API over HTTP) imports nothing of the server.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = import.meta.dir;
const PRODUCT = ["api", "ingest", "pipelines", "agents", "compose", "web"];

/** Top-level folders each floor may not import (`ingest/contract` is the one allowed door into ingest). */
const FORBIDDEN: Record<string, string[]> = {
  infra: PRODUCT,
  ingest: ["pipelines", "api", "agents", "compose"],
  pipelines: ["ingest", "api", "agents", "compose"],
  api: ["agents", "compose"],
  agents: ["compose"],
  web: ["api", "ingest", "pipelines", "agents", "compose", "infra"],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Relative module specifiers of `import`/`export ... from`, side-effect imports and `import()`. */
export function relativeImports(source: string): string[] {
  const re = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;
  return [...source.matchAll(re)].map((m) => m[1]!);
}

/** The folder path (from the root) an import lands in. */
function target(file: string, spec: string): string {
  return normalize(join(dirname(file), spec));
}

export function violations(file: string, imports: string[]): string[] {
  const floor = file.split("/")[0]!;
  const forbidden = FORBIDDEN[floor] ?? [];
  return imports
    .map((spec) => ({ spec, to: target(file, spec) }))
    .filter(({ to }) => {
      const top = to.split("/")[0]!;
      if (!forbidden.includes(top)) return false;
      if (floor === "pipelines" && top === "ingest") return !(to === "ingest/contract" || to.startsWith("ingest/contract/"));
      return true;
    })
    .map(({ spec }) => `${file} imports ${spec}`);
}

const exempt = (f: string) => f.endsWith(".test.ts") || f.endsWith("/main.ts") || f === "main.ts" || f.startsWith("compose/");

test("imports point down only", () => {
  const files = Object.keys(FORBIDDEN).flatMap(sourceFiles).filter((f) => !exempt(f));
  const found = files.flatMap((f) => violations(f, relativeImports(readFileSync(join(ROOT, f), "utf8"))));
  expect(found).toEqual([]);
});

test("the checker sees each kind of import and each forbidden direction", () => {
  const src = `import type { A } from "../pipelines/bus";\nexport { B } from "./b";\nconst m = await import("../../api/app");\nimport "../agents/x";`;
  expect(relativeImports(src)).toEqual(["../pipelines/bus", "./b", "../../api/app", "../agents/x"]);
  expect(violations("infra/x.ts", ["../pipelines/bus"])).toHaveLength(1);
  expect(violations("infra/testing/x.ts", ["../../compose/wiring"])).toHaveLength(1);
  expect(violations("ingest/x/y.ts", ["../../pipelines/gate"])).toHaveLength(1);
  expect(violations("pipelines/x.ts", ["../ingest/contract/facts"])).toEqual([]);
  expect(violations("pipelines/x.ts", ["../ingest/decoders/accounts"])).toHaveLength(1);
  expect(violations("api/x/y.ts", ["../../agents/z"])).toHaveLength(1);
  expect(violations("api/x/y.ts", ["../../pipelines/z", "../../ingest/z"])).toEqual([]);
  expect(violations("web/x/src/y.ts", ["../../../infra/log", "../../../api/errors"])).toHaveLength(2);
});
