/**
 * The keys batches are signed with: an agent's vault (sealed in vault_keys by the Launch API,
 * unsealed with VAULT_ENCRYPTION_KEY only for the moment of signing) or the platform
 * treasury (given by the composition root: `treasuryKey`, e.g. from TREASURY_SECRET_KEY).
 * A key is checked against the batch's payer address; errors never carry key material.
 */
import { Keypair } from "@solana/web3.js";
import type { Sql } from "../../infra/postgres";
import { decryptSecretKey } from "../../infra/vault-keys";
import type { BatchRow } from "./batches";

export type SignerDeps = {
  sql: Sql;
  /** VAULT_ENCRYPTION_KEY; null: vault batches cannot be signed (they wait) */
  vaultEncryptionKey: Uint8Array | null;
  /** the platform treasury's key, or null when this process has none */
  treasuryKey?: () => Keypair | null;
};

/** Thrown when a batch's key is not available here; the batch is retried later, never failed for it. */
export class SignerUnavailable extends Error {
  override name = "SignerUnavailable";
}

/** Whether the platform holds the sealed key of `vault` (an agent launched through the Launch API). */
export async function holdsVaultKey(sql: Sql, vault: string): Promise<boolean> {
  const [r] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM vault_keys WHERE vault = ${vault}`;
  return r!.n > 0;
}

export async function signerFor(deps: SignerDeps, batch: Pick<BatchRow, "payer_kind" | "payer">): Promise<Keypair> {
  if (batch.payer_kind === "treasury") {
    const key = deps.treasuryKey?.() ?? null;
    if (!key) throw new SignerUnavailable("no treasury key is configured in this process");
    if (key.publicKey.toBase58() !== batch.payer) throw new SignerUnavailable(`the treasury key is not the key of ${batch.payer}`);
    return key;
  }
  if (!deps.vaultEncryptionKey) throw new SignerUnavailable("VAULT_ENCRYPTION_KEY is not set: vault keys cannot be unsealed");
  const [row] = await deps.sql<{ sealed: Uint8Array }[]>`SELECT sealed FROM vault_keys WHERE vault = ${batch.payer}`;
  if (!row) throw new SignerUnavailable(`no sealed key for vault ${batch.payer}`);
  try {
    return Keypair.fromSecretKey(decryptSecretKey(row.sealed, deps.vaultEncryptionKey, batch.payer));
  } catch (e) {
    throw new SignerUnavailable(`the key of vault ${batch.payer} does not unseal: ${(e as Error).message}`);
  }
}
