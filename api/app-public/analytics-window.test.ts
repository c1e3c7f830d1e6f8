import { describe, expect, test } from "bun:test";
import { daySpans, windowStart } from "./analytics-service";

describe("analytics windows", () => {
  test("whole hours: the hour in progress and the ones before it; all from the start", () => {
    const now = Date.UTC(2026, 10, 26, 13, 45, 12) / 1000;
    const hour = Date.UTC(2026, 10, 26, 13) / 1000;
    expect(windowStart("24h", now)).toBe(hour - 23 * 3600);
    expect(windowStart("7d", now)).toBe(hour - 167 * 3600);
    expect(windowStart("30d", now)).toBe(hour - 719 * 3600);
    expect(windowStart("all", now)).toBe(0);
    expect(windowStart("24h", hour)).toBe(hour - 23 * 3600);
  });

  test("days as aligned spans: every day once, each span 2^level days from a multiple of 2^level, at most 32 days", () => {
    for (let from = 20_400; from < 20_470; from++)
      for (const length of [1, 2, 3, 7, 8, 9, 31, 32, 33, 100]) {
        const to = from + length - 1;
        const spans = daySpans(from, to);
        const days = spans.flatMap(([level, start]) => {
          expect(level).toBeGreaterThanOrEqual(0);
          expect(level).toBeLessThanOrEqual(5);
          expect(start % 2 ** level).toBe(0);
          return Array.from({ length: 2 ** level }, (_, i) => start + i);
        });
        expect(days).toEqual(Array.from({ length }, (_, i) => from + i));
      }
    // few spans: a 31-day window (30d) is at most 9 spans, a 2-day one (24h) at most 2
    expect(Math.max(...Array.from({ length: 64 }, (_, i) => daySpans(20_400 + i, 20_430 + i).length))).toBeLessThanOrEqual(9);
    expect(daySpans(20_401, 20_402)).toEqual([[0, 20_401], [0, 20_402]]);
    expect(daySpans(20_416, 20_447)).toEqual([[5, 20_416]]); // 20,416 = 638 × 32
    expect(daySpans(20_415, 20_447)).toEqual([[0, 20_415], [5, 20_416]]);
  });
});
