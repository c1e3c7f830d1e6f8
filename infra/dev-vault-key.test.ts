import { Keypair } from "@solana/web3.js";
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "./config";
import { createLogger } from "./log";
import { DEV_VAULT_KEY_FILE, withDevVaultKey } from "./dev-vault-key";
import { decryptSecretKey, encryptSecretKey } from "./vault-keys";

function capture() {
  const lines: any[] = [];
  return { lines, log: createLogger("debug", {}, (l) => lines.push(JSON.parse(l))) };
}

function inTempDir(fn: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), "acp-devkey-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the generated vault key of the embedded default", () => {
  test("generated once under DATA_DIR (0600) with a warning, then reused without one", () =>
    inTempDir((dir) => {
      const dataDir = join(dir, "data"); // not created yet, as on a first start
      const first = capture();
      const a = withDevVaultKey(loadConfig({ DATA_DIR: dataDir }), first.log);
      const file = join(dataDir, DEV_VAULT_KEY_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(a.launch.vaultEncryptionKey?.length).toBe(32);
      expect(first.lines.filter((l) => l.level === "warn").map((l) => l.msg)).toEqual([
        expect.stringContaining("production must set its own"),
      ]);
      expect(JSON.stringify(first.lines)).not.toContain(readFileSync(file, "utf8").trim()); // never logged

      const second = capture();
      const b = withDevVaultKey(loadConfig({ DATA_DIR: dataDir }), second.log);
      expect(Buffer.from(b.launch.vaultEncryptionKey!).equals(Buffer.from(a.launch.vaultEncryptionKey!))).toBe(true);
      expect(second.lines.filter((l) => l.level === "warn")).toEqual([]);
      // what one start sealed, the next unseals
      const vault = Keypair.generate();
      const sealed = encryptSecretKey(vault.secretKey, a.launch.vaultEncryptionKey!, vault.publicKey.toBase58());
      expect(decryptSecretKey(sealed, b.launch.vaultEncryptionKey!, vault.publicKey.toBase58())).toEqual(vault.secretKey);
      expect(Object.isFrozen(b) && Object.isFrozen(b.launch)).toBe(true);
    }));

  test("a key file with wider permissions is narrowed to 0600; a damaged one stops start-up naming the file", () =>
    inTempDir((dir) => {
      const file = join(dir, DEV_VAULT_KEY_FILE);
      writeFileSync(file, Buffer.alloc(32, 1).toString("base64") + "\n");
      chmodSync(file, 0o644);
      withDevVaultKey(loadConfig({ DATA_DIR: dir }), capture().log);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      writeFileSync(file, "not a key\n");
      expect(() => withDevVaultKey(loadConfig({ DATA_DIR: dir }), capture().log)).toThrow(file);
    }));

  test("a configured key is kept; with DATABASE_URL (a server) nothing is generated", () =>
    inTempDir((dir) => {
      const own = Buffer.alloc(32, 9).toString("base64");
      const set = withDevVaultKey(loadConfig({ DATA_DIR: dir, VAULT_ENCRYPTION_KEY: own }), capture().log);
      expect(Buffer.from(set.launch.vaultEncryptionKey!).toString("base64")).toBe(own);
      const server = withDevVaultKey(loadConfig({ DATA_DIR: dir, DATABASE_URL: "postgres://u:p@db.example:5432/acp" }), capture().log);
      expect(server.launch.vaultEncryptionKey).toBeNull();
      expect(existsSync(join(dir, DEV_VAULT_KEY_FILE))).toBe(false);
    }));
});
