import { describe, expect, test } from "bun:test";
import { parseCandlesQuery, candleCount, MAX_CANDLES } from "./model";
import { ApiError } from "../errors";

const T = Date.UTC(2026, 0, 1, 12, 30, 20) / 1000; // 2026-01-01T12:30:20Z
const iso = (s: number) => new Date(s * 1000).toISOString();
const problems = (q: Record<string, string>) => {
  try {
    parseCandlesQuery(q, T);
  } catch (err) {
    return ((err as ApiError).details as { field: string }[]).map((d) => d.field).sort();
  }
  return [];
};

describe("the candles window", () => {
  test("no from or to: the 1,000 intervals up to the end of the one in progress", () => {
    const w = parseCandlesQuery({}, T);
    expect(w).toEqual({ interval: "1h", step: 3600, from: Date.UTC(2026, 0, 1, 13) / 1000 - 1000 * 3600, to: Date.UTC(2026, 0, 1, 13) / 1000 });
    expect(candleCount(w.from, w.to, w.step)).toBe(MAX_CANDLES);
  });

  test("only from: aligned down, up to 1,000 candles, never past now", () => {
    const from = Date.UTC(2026, 0, 1, 0, 0, 30) / 1000;
    expect(parseCandlesQuery({ interval: "1m", from: iso(from) }, T)).toEqual({ interval: "1m", step: 60, from: from - 30, to: Math.ceil(T / 60) * 60 });
    expect(parseCandlesQuery({ interval: "1m", from: "2025-12-01T00:00:00Z" }, T)).toMatchObject({ to: Date.UTC(2025, 11, 1) / 1000 + 60_000 });
    expect(parseCandlesQuery({ interval: "1d", from: "2025-12-31" }, T)).toEqual({ interval: "1d", step: 86400, from: T - (T % 86400) - 86400, to: T - (T % 86400) + 86400 });
  });

  test("only to: the 1,000 candles before it, the one holding `to` included when `to` is inside it", () => {
    const to = Date.UTC(2026, 0, 1, 0, 0, 30) / 1000;
    const w = parseCandlesQuery({ interval: "5m", to: iso(to) }, T);
    expect(w.to).toBe(to);
    expect(candleCount(w.from, w.to, w.step)).toBe(1000);
    expect(w.from % 300).toBe(0);
    const aligned = parseCandlesQuery({ interval: "5m", to: "2026-01-01T00:00:00Z" }, T);
    expect(aligned.to - aligned.from).toBe(300_000);
  });

  test("both ends: exactly 1,000 is allowed, 1,001 is not; from must be before to", () => {
    expect(problems({ interval: "1m", from: "2026-01-01T00:00:00Z", to: "2026-01-01T16:40:00Z" })).toEqual([]);
    expect(problems({ interval: "1m", from: "2026-01-01T00:00:00Z", to: "2026-01-01T16:40:01Z" })).toEqual(["to"]);
    expect(problems({ interval: "1m", from: "2026-01-01T00:00:30Z", to: "2026-01-01T16:40:00Z" })).toEqual([]); // from's own minute counts
    expect(problems({ from: "2026-01-02", to: "2026-01-01" })).toEqual(["from"]);
  });

  test("times: ISO 8601 with a zone, or none (UTC), or a date; 1970 to 2100", () => {
    expect(parseCandlesQuery({ interval: "1m", from: "2026-01-01T01:00:00+01:00", to: "2026-01-01T00:10:00" }, T)).toMatchObject({ from: Date.UTC(2026, 0, 1) / 1000, to: Date.UTC(2026, 0, 1, 0, 10) / 1000 });
    for (const bad of ["yesterday", "1700000000", "2026-02-30T00:00:00Z", "2026-01-01T25:00:00Z", "1969-12-31T23:59:59Z", "2100-01-01T00:00:01Z", ""]) expect(problems({ from: bad })).toEqual(["from"]);
    expect(problems({ interval: "1w", from: "x", to: "y" })).toEqual(["from", "interval", "to"]);
  });
});
