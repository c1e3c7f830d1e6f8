import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resumePoint, slotOfLine } from "./resume";

const dir = mkdtempSync(join(tmpdir(), "export-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const nd = (slot: number, sig: string) => JSON.stringify({ signature: sig, slot, ix: 0, inner: -1, symbol: "ü" }) + "\n";
const csv = (slot: number, sig: string) => `"${sig}",${slot},0,-1,"2026-01-01T00:00:00.000Z"\n`;
const HEADER = `"signature","slot","ix","inner","time"\n`;

describe("resuming an interrupted export file", () => {
  test("slot of a line", () => {
    expect(slotOfLine(nd(7, "a").trim(), "ndjson")).toBe(7n);
    expect(slotOfLine(csv(8, "a").trim(), "csv")).toBe(8n);
    expect(slotOfLine(HEADER.trim(), "csv")).toBeNull();
    expect(slotOfLine('{"slot":', "ndjson")).toBeNull();
  });

  test("the last slot's rows and a cut line are dropped; the export continues from that slot", () => {
    const kept = nd(1, "a") + nd(2, "b");
    const path = file("a.ndjson", kept + nd(3, "c") + nd(3, "d") + '{"signature":"e","sl');
    expect(resumePoint(path, "ndjson")).toEqual({ keep: Buffer.byteLength(kept), from: 3n });
    const c = file("a.csv", HEADER + csv(5, "a") + csv(6, "b") + csv(6, "c"));
    expect(resumePoint(c, "csv")).toEqual({ keep: Buffer.byteLength(HEADER + csv(5, "a")), from: 6n });
  });

  test("a small tail window grows until the last slot's first row is in it", () => {
    const kept = nd(1, "a");
    const rows = Array.from({ length: 50 }, (_, i) => nd(2, `s${i}`)).join("");
    expect(resumePoint(file("b.ndjson", kept + rows), "ndjson", 64)).toEqual({ keep: Buffer.byteLength(kept), from: 2n });
    // every row of one slot: start over from that slot, nothing kept
    expect(resumePoint(file("c.ndjson", rows), "ndjson", 64)).toEqual({ keep: 0, from: 2n });
  });

  test("nothing usable: an empty file, or a CSV header alone (kept, so it is not written twice)", () => {
    expect(resumePoint(file("d.ndjson", ""), "ndjson")).toEqual({ keep: 0, from: null });
    expect(resumePoint(file("e.csv", HEADER), "csv")).toEqual({ keep: Buffer.byteLength(HEADER), from: null });
    expect(resumePoint(file("f.csv", HEADER.slice(0, 10)), "csv")).toEqual({ keep: 0, from: null });
  });
});
