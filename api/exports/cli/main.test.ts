import { describe, expect, test } from "bun:test";
import { progressLine } from "./main";

describe("export CLI progress line", () => {
  test("rows, MB, MB/s, and an ETA from how far through the slot range the last row is", () => {
    const p = { rows: 250_000, bytes: 50e6, slot: 1_250n, from: 1_000n, until: 2_000n, startedMs: 0 };
    // 10 s for a quarter of the range: 30 s to go
    expect(progressLine(p, 10_000)).toBe("250,000 rows  50.0 MB  5.0 MB/s  25%  ETA 0:30");
  });
  test("Parquet (no rows counted) or no known range: no rows, no ETA", () => {
    expect(progressLine({ rows: 0, bytes: 3e6, slot: null, from: null, until: 10n, startedMs: 0 }, 2_000)).toBe("3.0 MB  1.5 MB/s");
  });
});
