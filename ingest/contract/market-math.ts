/**
 * Amount and price maths, in one place for the write side (pipelines/rows.ts stores
 * each trade's price) and the read side (api/public answers prices, caps, USD). Amounts
 * are integer atoms (lamports for SOL); floating point only for the spec's `number`
 * fields (prices, USD). Sqrt prices are DBC/DAMM v2's Q64.64 of quote atoms per base atom.
 */

export const SOL_DECIMALS = 9;
const Q64 = 2n ** 64n;

/** Price of one whole coin in whole quote units from a Q64.64 sqrt price of quote atoms per base atom. */
export function priceFromSqrt(sqrtPrice: bigint, baseDecimals: number, quoteDecimals: number): number {
  const ratio = Number(sqrtPrice) / Number(Q64);
  return ratio * ratio * 10 ** (baseDecimals - quoteDecimals);
}

/** Exact value in quote atoms of `supplyAtoms` at a sqrt price (floor). */
export function valueAtSqrt(sqrtPrice: bigint, supplyAtoms: bigint): bigint {
  return (sqrtPrice * sqrtPrice * supplyAtoms) >> 128n;
}

/** Atoms as a whole-unit decimal string, exact: 1500000000n, 9 → "1.5". */
export function formatUnits(atoms: bigint, decimals: number): string {
  const neg = atoms < 0n;
  const abs = neg ? -atoms : atoms;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const frac = decimals ? (abs % base).toString().padStart(decimals, "0").replace(/0+$/, "") : "";
  return (neg ? "-" : "") + whole.toString() + (frac ? "." + frac : "");
}

/** Atoms as a number of whole units, for the spec's `number` fields: 1500000000n, 9 → 1.5 (not exact past 2^53 atoms). */
export function toUnits(atoms: bigint, decimals: number): number {
  return Number(atoms) / 10 ** decimals;
}

/** USD value of an amount of lamports at a SOL/USD price. */
export function lamportsToUsd(lamports: bigint, solUsd: number): number {
  return toUnits(lamports, SOL_DECIMALS) * solUsd;
}
