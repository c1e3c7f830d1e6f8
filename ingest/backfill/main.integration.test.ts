import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testEngines } from "../../infra/testing/engines";
import { startRpcTestDouble } from "../../infra/testing/rpc-double";
import { FIXTURES } from "../../compose/testing/platform";
import { simulatedChain } from "../../compose/testing/test-chain";
import { readTopic, testKafkaBrokers } from "../../infra/testing/kafka";
import { kafkaClient } from "../../pipelines/kafka/bus";
import { TOPICS } from "../../pipelines/kafka/topics";
import { randomUUID } from "node:crypto";
import { runChild } from "../../infra/testing/processes";

const DBC = "dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN";
const MAIN = new URL("./main.ts", import.meta.url).pathname;

/** The CLI as an operator runs it: its own process, Postgres from DATABASE_URL (the test engines'), chDB in a temp folder. */
async function cli(args: string[], env: Record<string, string>) {
  return runChild([process.execPath, MAIN, ...args], { env: { ...process.env, ...env } });
}

/** A simulated chain behind an RPC test double, and the CLI's environment for it. */
async function chainSetup(seed: number, transactions: number) {
  const engines = await testEngines();
  const chain = simulatedChain(seed, transactions);
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
  };
  return { chain, rpc, dataDir, env };
}

describe("bun run backfill", () => {
  test("bad arguments exit 2 with a message; a run stores the chain; a second run skips finished ranges", async () => {
    const { chain, rpc, dataDir, env: base } = await chainSetup(601, 800);
    const env = { ...base, KAFKA_BROKERS: "" };
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
      expect(run.stderr).not.toContain("backfill failed"); // the progress line (every 10 s when slow) says "failed on chain"
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

  test("with Kafka, it publishes to the configured KAFKA_TOPIC, not the default one", async () => {
    const { chain, rpc, dataDir, env } = await chainSetup(607, 120);
    const brokers = await testKafkaBrokers();
    const topic = `chain.transactions.backfill-${randomUUID().slice(0, 8)}`;
    try {
      const run = await cli(["--since", "0"], { ...env, KAFKA_BROKERS: brokers.join(","), KAFKA_TOPIC: topic, KAFKA_PARTITIONS: "1" });
      expect(run.stderr).not.toContain("backfill failed"); // the progress line (every 10 s when slow) says "failed on chain"
      expect(run.code).toBe(0);
      const stored = Number(/stored (\d+) /.exec(run.stdout)?.[1]);
      expect(stored).toBeGreaterThan(0);
      const kafka = kafkaClient(brokers, `backfill-test-${randomUUID()}`);
      const signatures = new Set((await readTopic(kafka, topic)).map((m) => JSON.parse(m.value!.toString()).signature as string));
      expect(signatures.size).toBe(stored);
      expect([...signatures].filter((s) => !chain.signatures.includes(s))).toEqual([]);
      const admin = kafka.admin();
      await admin.connect();
      const topics = await admin.listTopics();
      await admin.disconnect();
      // nothing went to (or created) the default topic on this test's private broker
      if (!process.env.KAFKA_BROKERS) expect(topics).not.toContain(TOPICS.transactions);
    } finally {
      rpc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
