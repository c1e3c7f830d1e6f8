/**
 * The treasury key on embedded Postgres: parsed and checked, sealed at rest (never the key's
 * bytes in the row or the logs), unsealed by a later process started without it, replaced
 * by another key, refused with the wrong encryption key.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { Keypair, SystemProgram, Transaction } from "@solana/web3.js";
import { testEngines, type TestEngines } from "./testing/engines";
import { createLogger } from "./log";
import { loadConfig } from "./config";
import { loadTreasurySigner, parseTreasurySecret } from "./treasury-key";

let e: TestEngines;
const lines: string[] = [];
const log = createLogger("debug", {}, (l) => lines.push(l));

beforeAll(async () => {
  e = await testEngines();
});

describe("TREASURY_SECRET_KEY", () => {
  test("a 64-byte base58 secret key whose halves agree; anything else is refused without echoing it", () => {
    const k = Keypair.generate();
    expect(parseTreasurySecret(bs58.encode(k.secretKey))).toEqual(k.secretKey);
    expect(parseTreasurySecret("0OIl")).toBe("must be base58");
    expect(parseTreasurySecret(bs58.encode(k.secretKey.subarray(0, 32)))).toContain("decodes to 32 bytes");
    const mixed = new Uint8Array(k.secretKey);
    mixed.set(Keypair.generate().publicKey.toBytes(), 32);
    expect(parseTreasurySecret(bs58.encode(mixed))).toContain("second half is not the public key");
    const secret = bs58.encode(mixed);
    let message = "";
    try {
      loadConfig({ TREASURY_SECRET_KEY: secret });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("TREASURY_SECRET_KEY: must be a Solana secret key: 64 bytes in base58 (got a value that is not shown: it is a secret)");
    expect(message).not.toContain(secret);
    const c = loadConfig({ TREASURY_SECRET_KEY: bs58.encode(k.secretKey) });
    expect(c.treasurySecretKey).toEqual(k.secretKey);
    expect(c.feeDistributionMinutes).toBe(60);
    expect(loadConfig({ FEE_DISTRIBUTION_MINUTES: "0" }).feeDistributionMinutes).toBe(0);
    expect(() => loadConfig({ FEE_DISTRIBUTION_MINUTES: "-1" })).toThrow(/FEE_DISTRIBUTION_MINUTES/);
  });
});

describe("the treasury key at rest", () => {
  test("sealed into Postgres at start; a process started without it signs with the sealed one; nothing of the key in the row or the logs", async () => {
    const key = new Uint8Array(randomBytes(32));
    const treasury = Keypair.generate();
    lines.length = 0;
    const first = await loadTreasurySigner({ sql: e.sql, secret: treasury.secretKey, encryptionKey: key, log });
    expect(first!.address).toBe(treasury.publicKey.toBase58());
    const [row] = await e.sql<{ address: string; sealed: Uint8Array }[]>`SELECT address, sealed FROM treasury_key`;
    expect(row!.address).toBe(treasury.publicKey.toBase58());
    expect(Buffer.from(row!.sealed).includes(Buffer.from(treasury.secretKey.subarray(0, 32)))).toBe(false);
    expect(row!.sealed[0]).toBe(2); // vault-keys.ts version 2: bound to the address
    // a later start without TREASURY_SECRET_KEY unseals it and signs as the treasury
    const later = await loadTreasurySigner({ sql: e.sql, secret: null, encryptionKey: key, log });
    const tx = new Transaction({ feePayer: treasury.publicKey, blockhash: bs58.encode(randomBytes(32)), lastValidBlockHeight: 1 });
    tx.add(SystemProgram.transfer({ fromPubkey: treasury.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }));
    tx.sign(later!.keypair());
    expect(tx.verifySignatures()).toBe(true);
    const text = lines.join("\n");
    expect(text).toContain(treasury.publicKey.toBase58());
    for (const secret of [bs58.encode(treasury.secretKey), bs58.encode(treasury.secretKey.subarray(0, 32)), Buffer.from(treasury.secretKey).toString("base64")])
      expect(text).not.toContain(secret);
  });

  test("another key replaces it; the wrong encryption key is refused at start; no key and nothing sealed: no signer", async () => {
    const key = new Uint8Array(randomBytes(32));
    const next = Keypair.generate();
    await loadTreasurySigner({ sql: e.sql, secret: next.secretKey, encryptionKey: key, log });
    expect((await loadTreasurySigner({ sql: e.sql, secret: null, encryptionKey: key, log }))!.address).toBe(next.publicKey.toBase58());
    expect(loadTreasurySigner({ sql: e.sql, secret: null, encryptionKey: new Uint8Array(randomBytes(32)), log })).rejects.toThrow("does not authenticate");
    // without VAULT_ENCRYPTION_KEY nothing is sealed or unsealed
    lines.length = 0;
    expect(await loadTreasurySigner({ sql: e.sql, secret: next.secretKey, encryptionKey: null, log })).toBeNull();
    expect(lines.join("\n")).toContain("VAULT_ENCRYPTION_KEY is not");
    await e.sql`DELETE FROM treasury_key`;
    expect(await loadTreasurySigner({ sql: e.sql, secret: null, encryptionKey: key, log })).toBeNull();
  });
});
