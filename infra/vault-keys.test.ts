import { describe, expect, test } from "bun:test";
import { createCipheriv, randomBytes } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import { decryptSecretKey, encryptSecretKey } from "./vault-keys";

const KEY = new Uint8Array(randomBytes(32));
const address = (k: Keypair) => k.publicKey.toBase58();

/** A key sealed the way version 1 did (only the version byte as associated data), as rows written before version 2 hold. */
function sealV1(secretKey: Uint8Array, key: Uint8Array): Uint8Array {
  const version = Uint8Array.of(1);
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: 16 });
  cipher.setAAD(version);
  const body = Buffer.concat([cipher.update(secretKey), cipher.final()]);
  return new Uint8Array(Buffer.concat([version, nonce, body, cipher.getAuthTag()]));
}

describe("vault secret keys at rest", () => {
  test("round trip gives the keypair back; nonces differ between seals; version 2", () => {
    const vault = Keypair.generate();
    const a = encryptSecretKey(vault.secretKey, KEY, address(vault));
    const b = encryptSecretKey(vault.secretKey, KEY, address(vault));
    expect(a.length).toBe(1 + 12 + 64 + 16);
    expect(a[0]).toBe(2);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    expect(Buffer.from(a).includes(Buffer.from(vault.secretKey.subarray(0, 32)))).toBe(false);
    const back = Keypair.fromSecretKey(decryptSecretKey(a, KEY, address(vault)));
    expect(back.publicKey.toBase58()).toBe(vault.publicKey.toBase58());
  });

  test("a sealed key swapped between two vaults is refused (the address is bound as associated data)", () => {
    const one = Keypair.generate();
    const two = Keypair.generate();
    const sealedOne = encryptSecretKey(one.secretKey, KEY, address(one));
    expect(() => decryptSecretKey(sealedOne, KEY, address(two))).toThrow(/wrong key or tampered|another vault/);
  });

  test("sealing refuses a secret key that is not the vault's; a version 1 key unseals only for its own vault", () => {
    const one = Keypair.generate();
    const two = Keypair.generate();
    expect(() => encryptSecretKey(one.secretKey, KEY, address(two))).toThrow(/not the secret key of vault/);
    const old = sealV1(one.secretKey, KEY);
    expect(Keypair.fromSecretKey(decryptSecretKey(old, KEY, address(one))).publicKey.toBase58()).toBe(address(one));
    expect(() => decryptSecretKey(old, KEY, address(two))).toThrow(/not the secret key of vault/);
  });

  test("any flipped byte (version, nonce, body, tag) makes decryption throw", () => {
    const vault = Keypair.generate();
    const sealed = encryptSecretKey(vault.secretKey, KEY, address(vault));
    for (const i of [0, 1, 12, 13, 40, sealed.length - 1]) {
      const t = sealed.slice();
      t[i]! ^= 1;
      expect(() => decryptSecretKey(t, KEY, address(vault))).toThrow();
    }
    expect(() => decryptSecretKey(sealed.subarray(0, sealed.length - 1), KEY, address(vault))).toThrow();
    expect(() => decryptSecretKey(new Uint8Array(5), KEY, address(vault))).toThrow(/too short/);
  });

  test("a wrong key throws without revealing anything; keys must be 32 bytes", () => {
    const vault = Keypair.generate();
    const sealed = encryptSecretKey(vault.secretKey, KEY, address(vault));
    expect(() => decryptSecretKey(sealed, new Uint8Array(randomBytes(32)), address(vault))).toThrow(/wrong key or tampered/);
    expect(() => encryptSecretKey(vault.secretKey, new Uint8Array(16), address(vault))).toThrow(/32 bytes/);
    expect(() => decryptSecretKey(sealed, new Uint8Array(31), address(vault))).toThrow(/32 bytes/);
  });
});
