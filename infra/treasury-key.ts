/**
 * The platform treasury's key: the wallet that is every platform config's `feeClaimer`,
 * which claims the platform's trading fees and pays them out (agents/fee-distribution/).
 *
 * TREASURY_SECRET_KEY is the key in base58 (the 64-byte secret key, as `solana-keygen` keys
 * and wallet exports hold it). It is never logged or returned. At rest it is sealed like an
 * agent vault's key (infra/vault-keys.ts: AES-256-GCM with VAULT_ENCRYPTION_KEY, bound to
 * the treasury's address) in Postgres (`treasury_key`): a process started with the key
 * seals it there, replacing any other; a process started without it unseals the stored
 * one. So the key need be in an environment only once. In memory only the sealed bytes are
 * kept; the key is unsealed for each signature.
 */
import { Keypair } from "@solana/web3.js";
import type { Sql } from "./postgres";
import type { Logger } from "./log";
import { decodeBase58 } from "./base58";
import { decryptSecretKey, encryptSecretKey } from "./vault-keys";

/** A 64-byte Solana secret key in base58 whose two halves agree (seed, then its public key); a message when not. */
export function parseTreasurySecret(text: string): Uint8Array | string {
  const bytes = decodeBase58(text.trim());
  if (!bytes) return "must be base58";
  if (bytes.length !== 64) return `must be a 64-byte secret key in base58 (it decodes to ${bytes.length} bytes)`;
  const derived = Keypair.fromSeed(bytes.subarray(0, 32)).publicKey.toBytes();
  if (!derived.every((b, i) => b === bytes[32 + i])) return "is not a Solana secret key: its second half is not the public key of its first";
  return bytes;
}

export type TreasurySigner = {
  /** the treasury's address (the public key) */
  address: string;
  /** the key for one signature: sign with it and drop it (unsealed afresh each call) */
  keypair(): Keypair;
};

/**
 * The treasury's signer: from TREASURY_SECRET_KEY (sealed into Postgres first), else from
 * the key sealed there before; null when neither is there, or without VAULT_ENCRYPTION_KEY.
 */
export async function loadTreasurySigner(o: { sql: Sql; secret: Uint8Array | null; encryptionKey: Uint8Array | null; log: Logger }): Promise<TreasurySigner | null> {
  if (!o.encryptionKey) {
    if (o.secret) o.log.warn("TREASURY_SECRET_KEY is set but VAULT_ENCRYPTION_KEY is not: the treasury key cannot be sealed, so the fee distribution does not run");
    return null;
  }
  const key = o.encryptionKey;
  let address: string;
  let sealed: Uint8Array;
  if (o.secret) {
    address = Keypair.fromSecretKey(o.secret).publicKey.toBase58();
    sealed = encryptSecretKey(o.secret, key, address);
    const [before] = await o.sql<{ address: string }[]>`SELECT address FROM treasury_key`;
    await o.sql`
      INSERT INTO treasury_key (one, address, sealed) VALUES (true, ${address}, ${Buffer.from(sealed)})
      ON CONFLICT (one) DO UPDATE SET address = EXCLUDED.address, sealed = EXCLUDED.sealed, sealed_at = now()`;
    o.log.info("treasury key sealed into Postgres; TREASURY_SECRET_KEY may now be removed from the environment", { treasury: address, replaced: before && before.address !== address ? before.address : null });
  } else {
    const [row] = await o.sql<{ address: string; sealed: Uint8Array }[]>`SELECT address, sealed FROM treasury_key`;
    if (!row) return null;
    address = row.address;
    sealed = new Uint8Array(row.sealed);
    // unsealed once here so a wrong VAULT_ENCRYPTION_KEY is told at start, not at the first claim
    decryptSecretKey(sealed, key, address).fill(0);
  }
  return {
    address,
    // the Keypair holds the unsealed bytes themselves (web3.js does not copy them): dropped after the signature
    keypair: () => Keypair.fromSecretKey(decryptSecretKey(sealed, key, address)),
  };
}
