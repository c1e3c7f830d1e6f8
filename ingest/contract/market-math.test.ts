import { describe, expect, test } from "bun:test";
import { formatUnits, lamportsToUsd, priceFromSqrt, toUnits, valueAtSqrt } from "./market-math";

describe("amount math", () => {
  test("formatUnits is exact", () => {
    expect(formatUnits(1_500_000_000n, 9)).toBe("1.5");
    expect(formatUnits(0n, 9)).toBe("0");
    expect(formatUnits(1n, 9)).toBe("0.000000001");
    expect(formatUnits(18446744073709551615n, 6)).toBe("18446744073709.551615");
    expect(formatUnits(-5n, 1)).toBe("-0.5");
  });

  test("price and value from a Q64.64 sqrt price", () => {
    const sqrt = 2n ** 64n; // price 1 quote atom per base atom
    expect(priceFromSqrt(sqrt, 6, 9)).toBeCloseTo(0.001, 15);
    expect(valueAtSqrt(sqrt, 1_000_000n)).toBe(1_000_000n);
    expect(valueAtSqrt(2n ** 63n, 1_000_000n)).toBe(250_000n);
  });

  test("atoms to whole units and lamports to USD", () => {
    expect(toUnits(1_500_000_000n, 9)).toBe(1.5);
    expect(toUnits(1_234_567n, 6)).toBeCloseTo(1.234567, 12);
    expect(lamportsToUsd(2_500_000_000n, 150)).toBe(375);
    expect(lamportsToUsd(0n, 150)).toBe(0);
  });
});
