/**
 * An agent's fuel (its budget for work): the vault's holdings valued at the SOL price,
 * less the spend recorded but not yet paid out of the vault. SOL is valued at the price
 * now (else the last known); USDC counts one atom as one micro-USD. Pure: the caller
 * reads the cached vault balance (agents/wallets.ts, `wallet_balances`) and the spend.
 */

/** The budget an asleep agent needs to wake (the spec's $20), in micro-USD. */
export const WAKE_MICROS = 20_000_000n;

export type FuelInputs = {
  /** the vault's cached balance; null while the wallet job has not read it yet */
  lamports: bigint | null;
  usdcAtoms: bigint | null;
  balanceReadAt: Date | null;
  /** recorded spend not yet settled */
  unsettledMicros: bigint;
  /** USD per SOL; null when no price was ever known */
  solUsd: number | null;
};

export type Fuel = {
  /** the budget in micro-USD (decimal string), never below 0; null when no SOL price is known */
  usdMicros: string | null;
  usd: number | null;
  vaultLamports: string;
  vaultUsdcAtoms: string;
  unsettledSpendMicros: string;
  solUsd: number | null;
  /** when the vault balance was read; null before its first read */
  balanceReadAt: string | null;
  /** the budget an asleep agent needs to wake, USD */
  wakeUsd: number;
};

/** The SOL price in whole micro-USD per SOL, so the vault is valued in integers. */
const microsPerSol = (solUsd: number) => BigInt(Math.round(solUsd * 1e6));

export function fuelMicros(i: FuelInputs): bigint | null {
  if (i.solUsd === null) return null;
  const vault = ((i.lamports ?? 0n) * microsPerSol(i.solUsd)) / 1_000_000_000n + (i.usdcAtoms ?? 0n);
  const left = vault - i.unsettledMicros;
  return left > 0n ? left : 0n;
}

export function fuelOf(i: FuelInputs): Fuel {
  const micros = fuelMicros(i);
  return {
    usdMicros: micros === null ? null : micros.toString(),
    usd: micros === null ? null : Number(micros) / 1e6,
    vaultLamports: (i.lamports ?? 0n).toString(),
    vaultUsdcAtoms: (i.usdcAtoms ?? 0n).toString(),
    unsettledSpendMicros: i.unsettledMicros.toString(),
    solUsd: i.solUsd,
    balanceReadAt: i.balanceReadAt ? i.balanceReadAt.toISOString() : null,
    wakeUsd: Number(WAKE_MICROS) / 1e6,
  };
}
