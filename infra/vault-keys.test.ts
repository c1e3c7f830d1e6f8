import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import { decryptSecretKey, encryptSecretKey } from "./vault-keys";

const KEY = new Uint8Array(randomBytes(32));

describe("vault secret keys at rest", () => {
  test("round trip gives the keypair back; nonces differ between seals", () => {
    const vault = Keypair.generate();
    const a = encryptSecretKey(vault.secretKey, KEY);
    const b = encryptSecretKey(vault.secretKey, KEY);
    expect(a.length).toBe(1 + 12 + 64 + 16);
    expect(a[0]).toBe(1);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    expect(Buffer.from(a).includes(Buffer.from(vault.secretKey.subarray(0, 32)))).toBe(false);
    const back = Keypair.fromSecretKey(decryptSecretKey(a, KEY));
    expect(back.publicKey.toBase58()).toBe(vault.publicKey.toBase58());
  });

  test("any flipped byte (version, nonce, body, tag) makes decryption throw", () => {
    const sealed = encryptSecretKey(Keypair.generate().secretKey, KEY);
    for (const i of [0, 1, 12, 13, 40, sealed.length - 1]) {
      const t = sealed.slice();
      t[i]! ^= 1;
      expect(() => decryptSecretKey(t, KEY)).toThrow();
    }
    expect(() => decryptSecretKey(sealed.subarray(0, sealed.length - 1), KEY)).toThrow();
    expect(() => decryptSecretKey(new Uint8Array(5), KEY)).toThrow(/too short/);
  });

  test("a wrong key throws without revealing anything; keys must be 32 bytes", () => {
    const sealed = encryptSecretKey(Keypair.generate().secretKey, KEY);
    expect(() => decryptSecretKey(sealed, new Uint8Array(randomBytes(32)))).toThrow(/wrong key or tampered/);
    expect(() => encryptSecretKey(new Uint8Array(64), new Uint8Array(16))).toThrow(/32 bytes/);
    expect(() => decryptSecretKey(sealed, new Uint8Array(31))).toThrow(/32 bytes/);
  });
});
