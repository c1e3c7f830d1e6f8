import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testEngines } from "../../infra/testing/engines";
import { startRpcTestDouble } from "../../infra/testing/rpc-double";
import { FIXTURES } from "../../infra/testing/platform";
import { simulatedChain } from "./test-chain";
import { runChild } from "../../infra/testing/processes";

const DBC = "dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN";
const MAIN = new URL("./main.ts", import.meta.url).pathname;

/** The CLI as an operator runs it: its own process, Postgres from DATABASE_URL (the test engines'), chDB in a temp folder. */
async function cli(args: string[], env: Record<string, string>) {
  return runChild([process.execPath, MAIN, ...args], { env: { ...process.env, ...env } });
}

describe("bun run backfill", () => {
  test("bad arguments exit 2 with a message; a run stores the chain; a second run skips finished ranges", async () => {
    const engines = await testEngines();
    const chain = simulatedChain(601, 800);
    const configBytes = new Uint8Array(readFileSync(`${FIXTURES}mainnet-accounts/dbc-pool-config.fee-in-both.bin`));
    const accounts = new Map(chain.configAddresses.map((a) => [a, { lamports: 1, data: configBytes, owner: DBC }]));
    const rpc = startRpcTestDouble(accounts, { transactions: chain.ledger });
    const dataDir = mkdtempSync(join(tmpdir(), "acp-backfill-cli-"));
    const [launch, stock, legacy] = chain.configAddresses;
    const env = {
      SOLANA_RPC_URL: rpc.url,
      PLATFORM_CONFIGS: `launch:${launch},stock:SIMX:${stock},legacy:${legacy}`,
      SIMULATOR: "off",
      DATABASE_URL: engines.pgUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      KAFKA_BROKERS: "",
    };
    try {
      const missing = await cli([], env);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("--since is required");
      const badSince = await cli(["--since", "last tuesday"], env);
      expect(badSince.code).toBe(2);
      expect(badSince.stderr).toContain("expected a slot number");
      const foreign = await cli(["--since", "0", "--config", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"], env);
      expect(foreign.code).toBe(2);
      expect(foreign.stderr).toContain("is not a platform config");

      const run = await cli(["--since", "0", "--coins"], env);
      expect(run.stderr).not.toContain("failed");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("backfill done");
      expect(run.stdout).toContain(`stored ${chain.signatures.length} `);

      const again = await cli(["--since", "0", "--coins"], env);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/addresses (\d+)\/\1 \(\1 already done\)/);
      expect(again.stdout).toContain("stored 0 ");
    } finally {
      rpc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
