import { describe, expect, test } from "bun:test";
import { DammPool, deltaA, deltaB, MAX_SQRT_PRICE, MIN_SQRT_PRICE, type DammPosition } from "./damm";
import { Rng } from "./random";

const position = (liquidity: bigint): DammPosition => ({ address: "p", nftMint: "m", nftAccount: "a", owner: "o", liquidity, feeA: 0n, feeB: 0n });

describe("DAMM v2 math", () => {
  test("matches the real migration: amounts of the devnet EvtInitializePool from its liquidity and sqrt price", () => {
    // dbc-migrate-damm-v2.enhanced.json, cp-amm EvtInitializePool
    const sqrtPrice = 41248173712355948n;
    const liquidity = 4124817800740441240625873619331n;
    expect(deltaA(sqrtPrice, MAX_SQRT_PRICE, liquidity, true)).toBe(100000010412648n);
    expect(deltaB(MIN_SQRT_PRICE, sqrtPrice, liquidity, true)).toBe(500000001n);
    // and the liquidity the DBC computes for half of the 1 SOL migration deposit
    expect(DammPool.liquidityFor(100000010412648n, 500000001n, sqrtPrice)).toBeGreaterThanOrEqual(liquidity);
  });

  test("sqrt price stays sqrt(B / A) in Q64.64 and fees add up", () => {
    const sqrtPrice = 412481737123559485n;
    const l = DammPool.liquidityFor(200000002081499n, 100_000_000_000n, sqrtPrice);
    const positions = [position(l / 2n), position(l - l / 2n)];
    const pool = new DammPool(sqrtPrice, l, positions, 20_000_000n, 1);
    const r = new Rng(1);
    let protocolB = 0n;
    let protocolA = 0n;
    let claimingB = 0n;
    let claimingA = 0n;
    for (let i = 0; i < 3000; i++) {
      const s = r.chance(0.5) ? pool.buy(r.logUniform(1_000_000n, 2_000_000_000n)) : pool.sell(r.logUniform(1_000_000_000n, 2_000_000_000_000n));
      if (s === null) continue;
      if (s.tradeDirection === 1 && pool.collectFeeMode === 0) (protocolA += s.protocolFee), (claimingA += s.claimingFee);
      else (protocolB += s.protocolFee), (claimingB += s.claimingFee);
      const ratio = Number((s.reserveB << 128n) / s.reserveA);
      const p = Number(s.nextSqrtPrice);
      expect(Math.abs(Math.sqrt(ratio) - p) / p).toBeLessThan(1e-6);
    }
    expect(positions[0]!.feeB + positions[1]!.feeB).toBe(claimingB);
    expect(protocolB).toBeGreaterThan(0n);
    expect(positions[1]!.feeB).toBeGreaterThan(0n);
    const [a, b] = pool.claim(positions[0]!);
    expect(a).toBe(0n);
    expect(b).toBeGreaterThan(0n);
    expect(positions[0]!.feeB).toBe(0n);
  });

  test("a round trip loses the fees", () => {
    const sqrtPrice = 412481737123559485n;
    const l = DammPool.liquidityFor(200000002081499n, 100_000_000_000n, sqrtPrice);
    const pool = new DammPool(sqrtPrice, l, [position(l)], 20_000_000n, 1);
    const bought = pool.buy(1_000_000_000n)!;
    const sold = pool.sell(bought.output)!;
    expect(sold.output).toBeLessThan(1_000_000_000n);
    expect(sold.output).toBeGreaterThan(950_000_000n);
  });
});
