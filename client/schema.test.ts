/**
 * The committed client types are the ones the current OpenAPI document makes: this fails
 * until `npm run client:generate` is run after a route description changes.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { generatedSchema, SCHEMA_FILE } from "./generate";

test("client/schema.ts is generated from the current document", async () => {
  const committed = readFileSync(SCHEMA_FILE, "utf8");
  const fresh = await generatedSchema();
  // the first line that differs, so the failure says where
  const a = committed.split("\n"), b = fresh.split("\n");
  const at = a.findIndex((line, i) => line !== b[i]);
  expect({ stale: committed !== fresh, firstDifference: at === -1 && a.length === b.length ? null : { line: at + 1, committed: a[at], generated: b[at] } }).toEqual({ stale: false, firstDifference: null });
});
