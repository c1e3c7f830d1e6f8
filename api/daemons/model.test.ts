import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { MintIdParams, PersonaBody, StdoutQuery } from "./model";
import { capabilitiesOf, catalog } from "./catalog";

describe("persona body", () => {
  test("texts trimmed, '' and null clear, traits deduplicated, fields left out stay out", () => {
    expect(v.parse(PersonaBody, { name: " Ada ", drive: "", motto: null, traits: ["a", "b", "a"] })).toEqual({ name: "Ada", drive: null, motto: null, traits: ["a", "b"] });
    expect(v.parse(PersonaBody, {})).toEqual({});
  });

  test("lengths in characters; NUL refused", () => {
    expect(v.safeParse(PersonaBody, { lore: "🙂".repeat(2000) }).success).toBe(true);
    expect(v.safeParse(PersonaBody, { lore: "🙂".repeat(2001) }).success).toBe(false);
    expect(v.safeParse(PersonaBody, { voice: "a\u0000b" }).success).toBe(false);
  });
});

describe("ids in paths and cursors", () => {
  test("1 to 2^63-1 in decimal, nothing else", () => {
    const ok = (id: string) => v.safeParse(MintIdParams, { mint: "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx", id }).success;
    expect(["1", "9223372036854775807"].map(ok)).toEqual([true, true]);
    expect(["0", "01", "9223372036854775808", "-1", "1e3", " 1"].map(ok)).toEqual([false, false, false, false, false, false]);
    expect(v.parse(StdoutQuery, {})).toEqual({ limit: 50 });
  });
});

describe("catalog", () => {
  test("an unknown template has no capabilities; the first model is the default", () => {
    expect(capabilitiesOf("wizard")).toEqual([]);
    const c = catalog([{ id: "m1", inputMicrosPerMTok: 1, outputMicrosPerMTok: 2_500_000 }, { id: "m2", inputMicrosPerMTok: 0, outputMicrosPerMTok: 0 }]);
    expect(c.models).toEqual([
      { id: "m1", default: true, inputUsdPerMTok: 0.000001, outputUsdPerMTok: 2.5 },
      { id: "m2", default: false, inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
    ]);
    expect(catalog([]).models).toEqual([]);
  });
});
