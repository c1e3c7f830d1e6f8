/**
 * Demo mode only (the simulator plays the chain, so no vault balance is ever read over
 * RPC): every simulated vault without a balance gets one, 0 to 1 SOL from a hash of its
 * address, so most demo agents have a budget over $20 and wake, and some sleep.
 */
import type { Sql } from "../../infra/postgres";

export async function fundSimulatedVaults(sql: Sql): Promise<number> {
  const rows = await sql`
    INSERT INTO wallet_balances (address, lamports, usdc_atoms, read_at)
    SELECT DISTINCT a.vault, (abs(hashtext(a.vault)::bigint) % 1000000000), 0, now()
    FROM agents a WHERE NOT EXISTS (SELECT 1 FROM wallet_balances w WHERE w.address = a.vault)
    ON CONFLICT (address) DO NOTHING RETURNING address`;
  return rows.length;
}
