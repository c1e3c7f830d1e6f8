import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEV_VAULT_KEY_FILE } from "../../infra/dev-vault-key";
import { runChild } from "../../infra/testing/processes";

// Only the processes serving the Launch API generate the development vault key; a tool run on
// the embedded default (no VAULT_ENCRYPTION_KEY, no DATABASE_URL) must not create it as a side
// effect. Each CLI stops at its own configuration check, after reading the configuration.
const ROOT = join(import.meta.dir, "..", "..");

describe("command-line tools and the development vault key", () => {
  for (const [name, argv] of [
    ["webhook", ["ingest/webhook/main.ts", "show"]],
    ["backfill", ["ingest/backfill/main.ts", "--since", "330000000"]],
  ] as const) {
    test(`${name} creates no key file and says nothing about the key`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "acp-cli-key-"));
      try {
        const env = { ...process.env, DATA_DIR: dataDir, VAULT_ENCRYPTION_KEY: "", DATABASE_URL: "", SOLANA_RPC_URL: "", HELIUS_API_KEY: "", HELIUS_WEBHOOK_ID: "", LOG_LEVEL: "info" };
        const run = await runChild([process.execPath, ...argv], { cwd: ROOT, env }, 30_000);
        expect(run.code).toBe(2); // its own configuration check (no Helius key / no RPC URL)
        expect(existsSync(join(dataDir, DEV_VAULT_KEY_FILE))).toBe(false);
        expect(run.stdout + run.stderr).not.toContain("vault key");
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 60_000);
  }
});
