/**
 * Vault balances (`budget.wallet`): SOL and USDC of each agent's vault, read over
 * RPC with getMultipleAccounts (100 vaults and their USDC token accounts per
 * pair of calls) and cached in Postgres; refreshed when older than the TTL.
 */
import { PublicKey } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";

export const USDC_MINT = {
  mainnet: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
  devnet: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
} as const;
/** SPL token account layout: amount is a u64 at offset 64. */
const TOKEN_AMOUNT_OFFSET = 64;

/**
 * The owner's associated token account of a classic SPL Token mint (USDC is one). The
 * program ids come from @solana/spl-token: a hand-typed id once derived addresses that
 * never exist. Off-curve owners (PDAs) are allowed: a vault may be one.
 */
export function associatedTokenAddress(owner: string, mint: string): string {
  return getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true).toBase58();
}

export type AccountReader = (addresses: string[]) => Promise<({ lamports: number; data: Uint8Array } | null)[]>;

/** Refreshes up to `limit` stale vault balances; returns how many were read. */
export async function refreshWalletBalances(deps: {
  sql: Sql;
  readAccounts: AccountReader;
  usdcMint: string;
  maxAgeSeconds: number;
  limit?: number;
  log: Logger;
}): Promise<number> {
  const stale = await deps.sql<{ vault: string }[]>`
    SELECT DISTINCT a.vault FROM agents a LEFT JOIN wallet_balances w ON w.address = a.vault
    WHERE w.read_at IS NULL OR w.read_at < now() - make_interval(secs => ${deps.maxAgeSeconds})
    LIMIT ${deps.limit ?? 500}`;
  let read = 0;
  for (let i = 0; i < stale.length; i += 100) {
    const vaults = stale.slice(i, i + 100).map((r) => r.vault);
    const atas = vaults.map((v) => associatedTokenAddress(v, deps.usdcMint));
    const [owners, tokens] = await Promise.all([deps.readAccounts(vaults), deps.readAccounts(atas)]);
    const rows = vaults.map((address, j) => {
      const token = tokens[j];
      const usdc = token && token.data.length >= TOKEN_AMOUNT_OFFSET + 8 ? Buffer.from(token.data).readBigUInt64LE(TOKEN_AMOUNT_OFFSET) : 0n;
      return { address, lamports: BigInt(owners[j]?.lamports ?? 0), usdc_atoms: usdc, read_at: new Date() };
    });
    await deps.sql`
      INSERT INTO wallet_balances ${deps.sql(rows, "address", "lamports", "usdc_atoms", "read_at")}
      ON CONFLICT (address) DO UPDATE SET lamports = EXCLUDED.lamports, usdc_atoms = EXCLUDED.usdc_atoms, read_at = EXCLUDED.read_at`;
    read += rows.length;
  }
  if (read) deps.log.debug("vault balances refreshed", { read });
  return read;
}
