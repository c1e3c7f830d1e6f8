import { describe, expect, test } from "bun:test";
import { windowStart } from "./analytics-service";

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
});
