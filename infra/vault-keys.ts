/**
 * Agent vault secret keys, encrypted at rest: AES-256-GCM with a random 12-byte
 * nonce and a 32-byte key from configuration. Layout of a sealed key:
 * version (1 byte) | nonce (12) | ciphertext | tag (16).
 *
 * Version 2 (written now) authenticates the version byte AND the vault's 32-byte public
 * key as associated data: a sealed key copied to another vault's row does not unseal.
 * Version 1 (rows written before) authenticated the version byte only; it still unseals.
 * Either way the unsealed key must derive the vault's public key, or it is refused.
 * Errors never carry key material.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { Keypair, PublicKey } from "@solana/web3.js";

const V1_VERSION_ONLY = 1;
const V2_BOUND_TO_VAULT = 2;
const NONCE = 12;
const TAG = 16;

function checkKey(key: Uint8Array) {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new Error(`vault encryption key must be 32 bytes (got ${key?.length ?? "none"})`);
}

const associatedData = (version: number, vault: string) =>
  version === V2_BOUND_TO_VAULT ? Buffer.concat([Uint8Array.of(version), new PublicKey(vault).toBytes()]) : Uint8Array.of(version);

/** The 64-byte secret key (seed | public key) is the vault's own: both halves give its address. */
function checkBelongs(secretKey: Uint8Array, vault: string) {
  const expected = new PublicKey(vault);
  const ok =
    secretKey.length === 64 &&
    Keypair.fromSeed(secretKey.subarray(0, 32)).publicKey.equals(expected) &&
    new PublicKey(secretKey.subarray(32)).equals(expected);
  if (!ok) throw new Error(`the secret key is not the secret key of vault ${vault}`);
}

export function encryptSecretKey(secretKey: Uint8Array, key: Uint8Array, vault: string): Uint8Array {
  checkKey(key);
  if (!(secretKey instanceof Uint8Array) || secretKey.length === 0) throw new Error("secret key to encrypt is empty");
  checkBelongs(secretKey, vault);
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG });
  cipher.setAAD(associatedData(V2_BOUND_TO_VAULT, vault));
  const body = Buffer.concat([cipher.update(secretKey), cipher.final()]);
  return new Uint8Array(Buffer.concat([Uint8Array.of(V2_BOUND_TO_VAULT), nonce, body, cipher.getAuthTag()]));
}

/** Throws when the data was tampered with, the key is wrong, the format is unknown, or the key is not `vault`'s. */
export function decryptSecretKey(sealed: Uint8Array, key: Uint8Array, vault: string): Uint8Array {
  checkKey(key);
  if (!(sealed instanceof Uint8Array) || sealed.length < 1 + NONCE + TAG + 1) throw new Error("sealed vault key is too short");
  const version = sealed[0]!;
  if (version !== V1_VERSION_ONLY && version !== V2_BOUND_TO_VAULT) throw new Error(`sealed vault key has unknown version ${version}`);
  const nonce = sealed.subarray(1, 1 + NONCE);
  const body = sealed.subarray(1 + NONCE, sealed.length - TAG);
  const tag = sealed.subarray(sealed.length - TAG);
  const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG });
  decipher.setAAD(associatedData(version, vault));
  decipher.setAuthTag(tag);
  let secretKey: Uint8Array;
  try {
    secretKey = new Uint8Array(Buffer.concat([decipher.update(body), decipher.final()]));
  } catch {
    throw new Error("sealed vault key does not authenticate (wrong key or tampered data)");
  }
  checkBelongs(secretKey, vault);
  return secretKey;
}
