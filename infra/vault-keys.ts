/**
 * Agent vault secret keys, encrypted at rest: AES-256-GCM with a random 12-byte
 * nonce and a 32-byte key from configuration. Layout of a sealed key:
 * version (1 byte, = 1) | nonce (12) | ciphertext | tag (16); the version byte is
 * authenticated as associated data. Errors never carry key material.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = 1;
const NONCE = 12;
const TAG = 16;

function checkKey(key: Uint8Array) {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new Error(`vault encryption key must be 32 bytes (got ${key?.length ?? "none"})`);
}

export function encryptSecretKey(secretKey: Uint8Array, key: Uint8Array): Uint8Array {
  checkKey(key);
  if (!(secretKey instanceof Uint8Array) || secretKey.length === 0) throw new Error("secret key to encrypt is empty");
  const version = Uint8Array.of(VERSION);
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG });
  cipher.setAAD(version);
  const body = Buffer.concat([cipher.update(secretKey), cipher.final()]);
  return new Uint8Array(Buffer.concat([version, nonce, body, cipher.getAuthTag()]));
}

/** Throws when the data was tampered with, the key is wrong, or the format is unknown. */
export function decryptSecretKey(sealed: Uint8Array, key: Uint8Array): Uint8Array {
  checkKey(key);
  if (!(sealed instanceof Uint8Array) || sealed.length < 1 + NONCE + TAG + 1) throw new Error("sealed vault key is too short");
  if (sealed[0] !== VERSION) throw new Error(`sealed vault key has unknown version ${sealed[0]}`);
  const nonce = sealed.subarray(1, 1 + NONCE);
  const body = sealed.subarray(1 + NONCE, sealed.length - TAG);
  const tag = sealed.subarray(sealed.length - TAG);
  const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG });
  decipher.setAAD(sealed.subarray(0, 1));
  decipher.setAuthTag(tag);
  try {
    return new Uint8Array(Buffer.concat([decipher.update(body), decipher.final()]));
  } catch {
    throw new Error("sealed vault key does not authenticate (wrong key or tampered data)");
  }
}
