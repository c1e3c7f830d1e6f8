import { describe, expect, test } from "bun:test";
import { parseExportQuery, parseRangeEnd, rangeEndLabel } from "./model";
import { ApiError } from "../errors";

const problems = (q: Record<string, string>) => {
  try {
    parseExportQuery(q);
  } catch (err) {
    return (err as ApiError).details;
  }
  return null;
};

describe("export query", () => {
  test("defaults: every coin, the whole range, CSV", () => {
    expect(parseExportQuery({})).toEqual({ mint: null, from: null, to: null, format: "csv" });
  });

  test("slots and times: digits are slots, times are UTC unless they name a zone", () => {
    expect(parseRangeEnd("0")).toEqual({ slot: 0n });
    expect(parseRangeEnd("18446744073709551615")).toEqual({ slot: 2n ** 64n - 1n });
    expect(parseRangeEnd("2026-01-02")).toEqual({ ms: Date.UTC(2026, 0, 2) });
    expect(parseRangeEnd("2026-01-02T03:04")).toEqual({ ms: Date.UTC(2026, 0, 2, 3, 4) });
    expect(parseRangeEnd("2026-01-02T03:04:05.5+01:00")).toEqual({ ms: Date.UTC(2026, 0, 2, 2, 4, 5, 500) });
    expect(typeof parseRangeEnd("18446744073709551616")).toBe("string");
    expect(typeof parseRangeEnd("2026-02-30T00:00:00Z")).toBe("string");
    expect(typeof parseRangeEnd("-5")).toBe("string");
  });

  test("every problem at once", () => {
    expect(problems({ mint: "0OIl", format: "xlsx", from: "soon", to: "later" })).toEqual([
      { field: "mint", message: "must be a base58 mint address" },
      { field: "format", message: "must be one of csv, ndjson, parquet" },
      { field: "from", message: "must be a slot number or an ISO 8601 time such as 2026-01-01T00:00:00Z" },
      { field: "to", message: "must be a slot number or an ISO 8601 time such as 2026-01-01T00:00:00Z" },
    ]);
    expect(problems({ from: "10", to: "9" })).toEqual([{ field: "from", message: "must not be after to" }]);
    expect(problems({ from: "10", to: "10" })).toBeNull();
    expect(problems({ from: "2026-01-01", to: "2026-01-01" })).toEqual([{ field: "from", message: "must be before to (a time range excludes to)" }]);
    // a slot and a time cannot be compared: both are kept
    expect(problems({ from: "2026-01-01", to: "5" })).toBeNull();
  });

  test("file name labels", () => {
    expect(rangeEndLabel({ slot: 42n })).toBe("42");
    expect(rangeEndLabel({ ms: Date.UTC(2026, 0, 2, 3, 4, 5, 600) })).toBe("20260102T030405Z");
  });
});
