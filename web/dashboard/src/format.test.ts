import { describe, expect, test } from "bun:test";
import { formatBps, formatChange, formatLamports, formatPrice, formatSol, formatTime, formatUsd, groupDigits, lamportsToSol, shareBps, NONE } from "./format";

describe("exact amounts", () => {
  test("lamports as SOL, to the lamport, past 2^53", () => {
    expect(lamportsToSol("0")).toBe("0");
    expect(lamportsToSol("1")).toBe("0.000000001");
    expect(lamportsToSol("1000000000")).toBe("1");
    expect(lamportsToSol("1500000001")).toBe("1.500000001");
    expect(lamportsToSol("-2500000000")).toBe("-2.5");
    expect(lamportsToSol("-1")).toBe("-0.000000001");
    // 2^64 - 1: a float would round this
    expect(lamportsToSol("18446744073709551615")).toBe("18446744073.709551615");
    expect(formatLamports("1408054567402")).toBe("1,408.054567402 SOL");
    expect(formatLamports("109930103838840123")).toBe("109,930,103.838840123 SOL");
  });
  test("refuses what is not an integer string", () => {
    expect(() => lamportsToSol("1.5")).toThrow();
    expect(() => lamportsToSol("")).toThrow();
    expect(() => lamportsToSol("1e9")).toThrow();
  });
  test("digit groups on decimal strings", () => {
    expect(groupDigits("1234567.000001")).toBe("1,234,567.000001");
    expect(groupDigits("-999")).toBe("-999");
    expect(groupDigits("1000")).toBe("1,000");
    expect(formatSol("365.271618789")).toBe("365.271618789 SOL");
    expect(() => groupDigits("1,000")).toThrow();
  });
  test("shares of lamport amounts, floored", () => {
    expect(shareBps("1", "3")).toBe(3333);
    expect(shareBps("5", "0")).toBe(0);
    expect(shareBps("32979031151651", "137412629796614")).toBe(2400);
  });
});

describe("readable figures", () => {
  test("basis points as percent, exact", () => {
    expect(formatBps(3000)).toBe("30%");
    expect(formatBps(31)).toBe("0.31%");
    expect(formatBps(1)).toBe("0.01%");
    expect(formatBps(1250)).toBe("12.5%");
    expect(formatBps(10_000)).toBe("100%");
    expect(formatBps(null)).toBe(NONE);
  });
  test("USD, prices, changes, times", () => {
    expect(formatUsd(215814.983385)).toBe("$215,814.98");
    expect(formatUsd(0.00006250230458746364)).toBe("$0.0000625");
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(null)).toBe(NONE);
    expect(formatPrice(2.2673408404722107e-7)).toBe("0.0000002267 SOL");
    expect(formatChange(59.3145)).toBe("+59.31%");
    expect(formatChange(-8.2353)).toBe("-8.24%");
    expect(formatChange(null)).toBe(NONE);
    expect(formatTime("2026-11-27T01:44:30.000Z")).toBe("2026-11-27 01:44:30 UTC");
  });
});
