/**
 * How the dashboard writes numbers. Lamports and atoms arrive as decimal strings and are
 * written exactly (BigInt, never a float); USD and prices are numbers the API already
 * rounded, written for reading. Pure: the browser test formats the API's values with the
 * same functions and compares them with the page's text.
 */

/** Placeholder for a value the API does not have (null: no price recorded, supply unknown). */
export const NONE = "—";

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Thousands separators in the whole part of a plain decimal string ("-1234.5" → "-1,234.5"). */
export function groupDigits(decimal: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(decimal);
  if (!m) throw new Error(`not a decimal number: ${JSON.stringify(decimal)}`);
  return `${m[1]}${m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${m[3] ?? ""}`;
}

/** Lamports (a decimal string of an integer) as SOL, exact to the lamport: "1500000001" → "1.500000001". */
export function lamportsToSol(lamports: string): string {
  if (!/^-?\d+$/.test(lamports)) throw new Error(`not an amount in lamports: ${JSON.stringify(lamports)}`);
  const v = BigInt(lamports);
  const abs = v < 0n ? -v : v;
  const frac = (abs % LAMPORTS_PER_SOL).toString().padStart(9, "0").replace(/0+$/, "");
  return `${v < 0n ? "-" : ""}${abs / LAMPORTS_PER_SOL}${frac ? `.${frac}` : ""}`;
}

/** Lamports written as SOL for the page: "1408054567402" → "1,408.054567402 SOL". */
export const formatLamports = (lamports: string) => `${groupDigits(lamportsToSol(lamports))} SOL`;

/** An exact decimal string of the API in whole SOL ("365.271618789"), or in a stock-paired coin's quote unit. */
export const formatSol = (sol: string, unit = "SOL") => `${groupDigits(sol)} ${unit}`;

/** Token atoms (an integer string), grouped, exact. */
export const formatAtoms = (atoms: string) => groupDigits(atoms);

/** An exact decimal string (token amounts of trades), grouped. */
export const formatDecimal = (decimal: string) => groupDigits(decimal);

/** A count. */
export const formatCount = (n: number) => n.toLocaleString("en-US");

/** Dollars, cents for amounts, four significant digits under a cent (coin prices); null = not known. */
export function formatUsd(usd: number | null): string {
  if (usd === null) return NONE;
  if (usd !== 0 && Math.abs(usd) < 0.01) return `$${usd.toLocaleString("en-US", { maximumSignificantDigits: 4 })}`;
  return usd.toLocaleString("en-US", { style: "currency", currency: "USD" });
}

/** A price in SOL (or the quote unit) per whole coin, often a few billionths: four significant digits, never an exponent. */
export const formatPrice = (price: number, unit = "SOL") => `${price.toLocaleString("en-US", { maximumSignificantDigits: 4 })} ${unit}`;

/** Basis points as a percent, exact: 3000 → "30%", 31 → "0.31%"; null = not known. */
export function formatBps(bps: number | null): string {
  if (bps === null) return NONE;
  const whole = Math.trunc(bps / 100);
  const frac = String(Math.abs(bps % 100)).padStart(2, "0").replace(/0+$/, "");
  return `${bps < 0 && whole === 0 ? "-" : ""}${whole}${frac ? `.${frac}` : ""}%`;
}

/** A percent change the API gives with up to four decimals; null = no day-old price. */
export function formatChange(pct: number | null): string {
  if (pct === null) return NONE;
  return `${pct > 0 ? "+" : ""}${pct.toLocaleString("en-US", { maximumFractionDigits: 2 })}%`;
}

/** An ISO time as UTC, to the second: "2026-11-27 01:44:30 UTC". */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** part / whole of two lamport amounts, in basis points, floored (0 when whole is 0). */
export function shareBps(part: string, whole: string): number {
  const w = BigInt(whole);
  return w === 0n ? 0 : Number((BigInt(part) * 10_000n) / w);
}

/** Lamports as a float in SOL, only for drawing (charts); the text always comes from formatLamports. */
export const lamportsForChart = (lamports: string) => Number(BigInt(lamports)) / 1e9;
