import { describe, expect, test } from "bun:test";
import { simulatedSolUsd, simulatedSource } from "./simulated";
import { createSolPriceService } from ".";
import { createLogger } from "../log";

const DAY = 86_400_000;
const T0 = Date.parse("2026-11-23T00:00:00Z");

describe("the simulated SOL price", () => {
  test("a pure function of seed and time: same seed, same line; another seed, another line", () => {
    const line = (seed: number) => Array.from({ length: 50 }, (_, i) => simulatedSolUsd(seed, T0 + i * 3_600_000));
    expect(line(42)).toEqual(line(42));
    expect(line(43)).not.toEqual(line(42));
  });

  test("plausible: positive, within a band over a week, small steps between reads, it moves", () => {
    const week = Array.from({ length: 7 * 24 * 60 }, (_, i) => simulatedSolUsd(42, T0 + i * 60_000));
    expect(Math.min(...week)).toBeGreaterThan(50);
    expect(Math.max(...week)).toBeLessThan(400);
    expect(Math.max(...week) / Math.min(...week)).toBeGreaterThan(1.05); // a walk, not a constant
    for (let t = T0; t < T0 + DAY; t += 3_000) {
      const a = simulatedSolUsd(42, t), b = simulatedSolUsd(42, t + 3_000);
      expect(Math.abs(b - a) / a).toBeLessThan(0.005); // 3 s apart (the service's cache): no jumps
    }
  });

  test("read through the price service: source is one of the spec's values, flagged as simulated", async () => {
    let now = T0;
    const source = simulatedSource(7, () => now);
    expect(source.simulated).toBe(true);
    const service = createSolPriceService([source], createLogger("error"), 3000, () => now);
    const price = await service.current();
    expect(price).toEqual({ usd: simulatedSolUsd(7, T0), conf: null, publishTime: new Date(T0).toISOString(), source: "aggregator" });
    expect(["oracle", "oracle-relay", "aggregator", "exchange"]).toContain(price!.source);
    now += 60_000;
    expect((await service.current())!.usd).toBe(simulatedSolUsd(7, T0 + 60_000));
  });
});
