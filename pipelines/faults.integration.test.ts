import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { testEngines } from "../infra/testing/engines";
import { testKafka, testKafkaBrokers } from "../infra/testing/kafka";
import { startClickhouseHttpDouble } from "../infra/testing/clickhouse-http-double-process";
import { createClickhouseServer } from "../infra/clickhouse/server";
import { createSimulator, fixtureSimConfigs } from "../ingest/simulator";
import { toEnvelopes } from "../ingest/helius/handle";
import { createKafkaBus, kafkaClient } from "./kafka/bus";
import { consumerLag, ensureTopics } from "./kafka/admin";
import { freePort } from "../infra/net";
import { until } from "../infra/testing/wait";
import { printed, spawnChild, stopChild, type Child } from "../infra/testing/processes";

// The scaled mode for real: the `pipelines` process (pipelines/main.ts) in its own process,
// over a real Kafka broker, a Postgres server (embedded) and ClickHouse over HTTP (the
// chDB-backed test double in its own process). It is killed with SIGKILL in the middle of
// its work, restarted, and the broker is restarted under load: every count must be exact.
const SEED = 41;
const ROOT = join(import.meta.dir, "..");




describe("faults in the scaled mode", () => {
  test("kill -9 of the pipelines process mid-work, restart, and a broker restart under load: counts stay exact", async () => {
    const brokers = await testKafkaBrokers();
    const topic = `chain.transactions.faults-${randomUUID().slice(0, 8)}`;
    const groupId = `faults-${randomUUID()}`;
    const kafka = kafkaClient(brokers, "faults-test");
    await ensureTopics(kafka, { partitions: 3, replication: 1, topics: [topic] });

    const engines = await testEngines();
    const database = `faults_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
    await engines.sql.unsafe(`CREATE DATABASE ${database}`);
    const databaseUrl = engines.pgUrl.replace(/\/postgres$/, `/${database}`);
    const clickhouse = await startClickhouseHttpDouble();
    const ch = await createClickhouseServer(clickhouse.url);

    // the chain: 6,000 simulated transactions on the pipelines' own (simulated) configs
    const sim = createSimulator({ seed: SEED, configs: fixtureSimConfigs(SEED), pools: 8 });
    const envelopes = toEnvelopes(sim.next(6000), "simulator");
    const expected = envelopes.flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;
    const bus = await createKafkaBus(kafka, { topic });
    for (let i = 0; i < envelopes.length; i += 500) await bus.publish(envelopes.slice(i, i + 500));
    await bus.publish(envelopes.slice(0, 1000)); // and some twice

    const env = {
      ...process.env,
      KAFKA_BROKERS: brokers.join(","),
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: groupId,
      KAFKA_PARTITIONS: "3",
      DATABASE_URL: databaseUrl,
      CLICKHOUSE_URL: clickhouse.url,
      SIMULATOR: "on", // the pipelines only take the simulated configs from it; nothing is simulated there
      SIMULATOR_SEED: String(SEED),
      SOLANA_RPC_URL: "",
      LOG_LEVEL: "warn",
      PORT: String(await freePort()),
    };
    const children: Child[] = [];
    const start = () => {
      const child = spawnChild([process.execPath, join(ROOT, "pipelines", "main.ts")], { cwd: ROOT, env });
      children.push(child);
      return child;
    };
    const trades = async () => Number((await ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades"))[0]!.n);

    try {
      const first = start();
      await until("the first rows", async () => ((await trades()) > 0 ? true : undefined), 60_000).catch(async (err) => {
        await stopChild(first, "SIGKILL");
        console.error(await printed(first));
        throw err;
      });
      await stopChild(first, "SIGKILL");
      const atKill = await trades();

      const second = start();
      await until("progress after the restart", async () => ((await trades()) > atKill ? true : undefined));
      await (await testKafka()).restart();
      await until("every trade stored", async () => ((await trades()) === expected ? true : undefined), 180_000);
      await until("lag 0", async () => ((await consumerLag(kafka, groupId, topic)) === 0 ? true : undefined));

      const [sums] = await ch.query<Record<string, string>>(
        `SELECT
           (SELECT toString(count()) FROM trades) AS trades,
           (SELECT toString(sum(trades)) FROM candles_1m) AS candles,
           (SELECT toString(sum(trades)) FROM market_state) AS market,
           (SELECT toString(sum(trades)) FROM volume_1m) AS minutes,
           (SELECT toString(count()) FROM transactions) AS transactions`,
      );
      expect(sums).toEqual({ trades: String(expected), candles: String(expected), market: String(expected), minutes: String(expected), transactions: String(envelopes.length) });

      expect(await stopChild(second)).toBe(0);
    } finally {
      for (const child of children) await stopChild(child, "SIGKILL");
      await bus.close().catch(() => {});
      await ch.close();
      await clickhouse.stop();
    }
  }, 400_000);
});
