import { describe, expect, test } from "bun:test";
import { fuelMicros, fuelOf } from "./fuel";

const base = { lamports: null, usdcAtoms: null, balanceReadAt: null, unsettledMicros: 0n, solUsd: 150 };

describe("fuel", () => {
  test("SOL at the price, USDC one atom per micro-USD, less unsettled spend", () => {
    // 2.5 SOL at $151.234567 = $378.0864175 → 378086417 µ$ (floor), + 12.000001 USDC, - 0.5 $ unsettled
    const i = { ...base, lamports: 2_500_000_000n, usdcAtoms: 12_000_001n, unsettledMicros: 500_000n, solUsd: 151.234567, balanceReadAt: new Date("2026-01-02T03:04:05Z") };
    expect(fuelMicros(i)).toBe(378_086_417n + 12_000_001n - 500_000n);
    expect(fuelOf(i)).toEqual({
      usdMicros: "389586418",
      usd: 389.586418,
      vaultLamports: "2500000000",
      vaultUsdcAtoms: "12000001",
      unsettledSpendMicros: "500000",
      solUsd: 151.234567,
      balanceReadAt: "2026-01-02T03:04:05.000Z",
      wakeUsd: 20,
    });
  });

  test("never below zero; an unread vault is empty; no price known = unknown", () => {
    expect(fuelMicros({ ...base, lamports: 1_000_000_000n, unsettledMicros: 151_000_000n })).toBe(0n);
    expect(fuelMicros(base)).toBe(0n);
    expect(fuelOf({ ...base, solUsd: null, lamports: 5n })).toMatchObject({ usdMicros: null, usd: null, vaultLamports: "5", solUsd: null });
  });
});
