import { describe, expect, test } from "bun:test";
import { byAgent, MIN_PAYOUT_LAMPORTS, owedPayouts, splitClaims, type AgentClaim } from "./split";

const SPLIT = { vault: 70, creator: 15, platformBurn: 15 };
const claim = (mint: string, lamports: bigint): AgentClaim => ({ mint, vault: `vault-${mint}`, creator: `creator-${mint}`, lamports });
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

describe("splitClaims", () => {
  test("70/15/15 of round amounts: exactly the percentages, nothing left over", () => {
    const r = splitClaims([claim("a", 1_000_000_000n), claim("b", 300_000_000n)], SPLIT);
    expect(r.total).toBe(1_300_000_000n);
    expect(r.allocations).toEqual([
      { kind: "vault", mint: "a", recipient: "vault-a", lamports: 700_000_000n },
      { kind: "creator", mint: "a", recipient: "creator-a", lamports: 150_000_000n },
      { kind: "vault", mint: "b", recipient: "vault-b", lamports: 210_000_000n },
      { kind: "creator", mint: "b", recipient: "creator-b", lamports: 45_000_000n },
    ]);
    expect(r.platform).toBe(195_000_000n);
  });

  test("remainders go to the platform-token budget; the parts add up to the claim to the lamport", () => {
    // 7 lamports: vault floor(4.9) = 4, creator floor(1.05) = 1, platform 2 (its 1.05 and the 0.95 the floors left)
    const r = splitClaims([claim("a", 7n), claim("b", 1_234_567_891n), claim("c", 1n), claim("d", 0n)], SPLIT);
    expect(r.allocations.filter((a) => a.mint === "a").map((a) => a.lamports)).toEqual([4n, 1n]);
    expect(r.allocations.filter((a) => a.mint === "b").map((a) => a.lamports)).toEqual([864_197_523n, 185_185_183n]);
    // 1 lamport: nothing to the vault or creator (no zero allocations), all to the platform
    expect(r.allocations.filter((a) => a.mint === "c" || a.mint === "d")).toEqual([]);
    expect(r.total).toBe(1_234_567_899n);
    expect(r.platform).toBe(2n + (1_234_567_891n - 864_197_523n - 185_185_183n) + 1n);
    expect(r.platform + sum(r.allocations.map((a) => a.lamports))).toBe(r.total);
    // each vault's share follows its own claim: within one lamport of 70 %
    for (const c of [claim("b", 1_234_567_891n)]) {
      const v = r.allocations.find((a) => a.mint === c.mint && a.kind === "vault")!.lamports;
      expect(c.lamports * 70n - v * 100n).toBeGreaterThanOrEqual(0n);
      expect(c.lamports * 70n - v * 100n).toBeLessThan(100n);
    }
  });

  test("many agents with awkward amounts: the sum is exact and the platform keeps at most 2 lamports per agent beyond its 15 %", () => {
    const claims = Array.from({ length: 500 }, (_, i) => claim(`m${i}`, BigInt(i) * 7_777_777n + 13n * BigInt(i % 7)));
    const r = splitClaims(claims, SPLIT);
    expect(r.total).toBe(sum(claims.map((c) => c.lamports)));
    expect(r.platform + sum(r.allocations.map((a) => a.lamports))).toBe(r.total);
    const fifteen = (r.total * 15n) / 100n;
    expect(r.platform).toBeGreaterThanOrEqual(fifteen);
    expect(r.platform - fifteen).toBeLessThanOrEqual(2n * 500n);
  });

  test("other splits (TOKENOMICS_SPLIT): 100/0/0 gives everything to vaults; 0/0/100 to the platform", () => {
    expect(splitClaims([claim("a", 999n)], { vault: 100, creator: 0, platformBurn: 0 })).toEqual({
      total: 999n,
      allocations: [{ kind: "vault", mint: "a", recipient: "vault-a", lamports: 999n }],
      platform: 0n,
    });
    expect(splitClaims([claim("a", 999n)], { vault: 0, creator: 0, platformBurn: 100 })).toEqual({ total: 999n, allocations: [], platform: 999n });
    expect(splitClaims([], SPLIT)).toEqual({ total: 0n, allocations: [], platform: 0n });
  });

  test("refuses a split not summing to 100, a negative claim, and one agent listed twice", () => {
    expect(() => splitClaims([claim("a", 1n)], { vault: 70, creator: 15, platformBurn: 10 })).toThrow("summing to 100");
    expect(() => splitClaims([claim("a", -1n)], SPLIT)).toThrow("negative");
    expect(() => splitClaims([claim("a", 1n), claim("a", 2n)], SPLIT)).toThrow("twice");
  });
});

test("byAgent adds up each coin's pools (its DBC and DAMM v2 claims), keeping its vault and creator", () => {
  expect(byAgent([claim("a", 5n), claim("b", 1n), claim("a", 7n)])).toEqual([claim("a", 12n), claim("b", 1n)]);
});

test("owedPayouts keeps what reaches the minimum payout (890,880 lamports) and lets the rest wait", () => {
  const owed = [
    { kind: "vault" as const, mint: "a", recipient: "va", lamports: MIN_PAYOUT_LAMPORTS },
    { kind: "creator" as const, mint: "a", recipient: "ca", lamports: MIN_PAYOUT_LAMPORTS - 1n },
  ];
  expect(owedPayouts(owed)).toEqual([owed[0]!]);
});
