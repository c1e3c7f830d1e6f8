/**
 * The SOL/USD price of the demo: with the simulator running and no real source
 * configured, a plausible random walk instead of no price (and $0 everywhere). It is a
 * pure function of the simulator seed and the clock: smooth noise at time scales from a
 * day down to ten seconds, summed in log space (about ±15 % over a day, a few cents
 * between reads), so every process and every restart with one seed sees one price line.
 * It reports itself as `aggregator`, one of the spec's source values; the start-up log
 * and the README say it is simulated.
 */
import type { PriceSource } from "./sources";

/** [period ms, amplitude in log-price] */
const SCALES: readonly [number, number][] = [
  [86_400_000, 0.1],
  [14_400_000, 0.04],
  [3_600_000, 0.02],
  [600_000, 0.008],
  [60_000, 0.003],
  [10_000, 0.001],
];

/** A hash of (seed, scale, step) to [-1, 1): integer mixing, the same on every engine. */
function noise(seed: number, scale: number, step: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(scale + 1, 0xc2b2ae35) ^ Math.imul(step | 0, 0x27d4eb2f) ^ Math.imul(Math.floor(step / 2 ** 32), 0x165667b1);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  h ^= h >>> 15;
  return (h >>> 0) / 2 ** 31 - 1;
}

/** The simulated price in USD (two decimals) at `atMs` for `seed`. */
export function simulatedSolUsd(seed: number, atMs: number): number {
  const base = 120 + (((noise(seed, 99, 0) + 1) / 2) * 100); // 120..220, chosen by the seed
  let x = 0;
  SCALES.forEach(([period, amplitude], scale) => {
    const t = atMs / period;
    const step = Math.floor(t);
    const f = t - step;
    const s = f * f * (3 - 2 * f); // smoothstep: no kinks at step boundaries
    x += amplitude * (noise(seed, scale, step) * (1 - s) + noise(seed, scale, step + 1) * s);
  });
  return Math.round(base * Math.exp(x) * 100) / 100;
}

export function simulatedSource(seed: number, now: () => number = Date.now): PriceSource {
  return {
    name: "aggregator",
    simulated: true,
    async read() {
      const at = now();
      return { usd: simulatedSolUsd(seed, at), conf: null, publishTime: new Date(at).toISOString(), source: "aggregator" };
    },
  };
}
