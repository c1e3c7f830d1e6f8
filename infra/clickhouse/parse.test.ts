import { describe, expect, test } from "bun:test";
import { parseJsonEachRow, parseJsonEachRowYielding } from "./client";

describe("JSONEachRow parsing", () => {
  test("a large result parsed in slices equals the one-shot parse, rows in order", async () => {
    const rows = Array.from({ length: 5003 }, (_, i) => ({ mint: `m${i}`, n: String(i), text: "line\\nwith escapes, commas] and {braces}" }));
    const text = rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
    expect(text.length).toBeGreaterThan(128 * 1024);
    expect(await parseJsonEachRowYielding(text)).toEqual(parseJsonEachRow(text));
    expect((await parseJsonEachRowYielding(text, 7)).map((r: any) => r.mint)).toEqual(rows.map((r) => r.mint));
  });

  test("small and empty results", async () => {
    expect(await parseJsonEachRowYielding("")).toEqual([]);
    expect(await parseJsonEachRowYielding('{"a":1}\n{"a":2}\n')).toEqual([{ a: 1 }, { a: 2 }]);
  });
});
