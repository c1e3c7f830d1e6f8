/**
 * The vault encryption key of the embedded default. With no VAULT_ENCRYPTION_KEY and no
 * DATABASE_URL (a newcomer's `npm start`), a key is generated once into
 * DATA_DIR/vault-encryption.key (mode 0600) and reused at every start, so launches work
 * out of the box. The sealed vault keys live in the same DATA_DIR, so key and data travel
 * together; a server deployment (DATABASE_URL set) must bring its own key.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Config } from "./config";
import type { Logger } from "./log";

export const DEV_VAULT_KEY_FILE = "vault-encryption.key";

function parseKey(text: string, file: string): Uint8Array {
  const s = text.trim();
  const key = Buffer.from(s, "base64");
  if (key.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(s))
    throw new Error(`${file} does not hold 32 bytes in base64; restore it from a backup, or set VAULT_ENCRYPTION_KEY (sealed vault keys need the key they were sealed with)`);
  return new Uint8Array(key);
}

/** Reads the generated key, or creates it (exclusively, so concurrent starts agree on one key). */
function readOrCreate(file: string): { key: Uint8Array; created: boolean } {
  try {
    writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
    return { key: parseKey(readFileSync(file, "utf8"), file), created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  // a copy restored with wider permissions is narrowed again: the key unseals every vault
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return { key: parseKey(readFileSync(file, "utf8"), file), created: false };
}

/** `config` with the generated key filled in on the embedded default; unchanged otherwise. */
export function withDevVaultKey(config: Config, log: Logger): Config {
  if (config.launch.vaultEncryptionKey || config.databaseUrl) return config;
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, DEV_VAULT_KEY_FILE);
  const { key, created } = readOrCreate(file);
  if (created)
    log.warn("VAULT_ENCRYPTION_KEY is not set: generated a development key; production must set its own (openssl rand -base64 32)", { file });
  else log.info("using the generated development vault key (set VAULT_ENCRYPTION_KEY in production)", { file });
  return Object.freeze({ ...config, launch: Object.freeze({ ...config.launch, vaultEncryptionKey: key }) });
}
