import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { readFileSync } from "node:fs";
import { testEngines } from "../infra/testing/engines";
import { testPlatform, registryWith, FIXTURES } from "../compose/testing/platform";
import { until } from "../infra/testing/wait";
import { createLogger } from "../infra/log";
import type { ClickHouse } from "../infra/clickhouse";
import { createSimulator, fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { toEnvelopes } from "../ingest/helius/handle";
import { DBC } from "../ingest/decoders/program-coder";
import type { PoolCreated } from "../ingest/contract/facts";
import { PoolRegistry } from "./platform/registry";
import { createMetrics } from "./metrics";
import { createFactSink } from "./sink";
import { markedInFlight } from "./in-flight";

const FIXTURE_CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
const FIXTURE_MINT = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";

const deadLetters = async (signatures: string[]) => {
  const { sql } = await testEngines();
  return sql<{ signature: string; reason: string; envelope: string }[]>`SELECT signature, reason, envelope FROM sink_dead_letters WHERE signature IN ${sql(signatures)}`;
};
const trades = async (ch: ClickHouse, mints: string[]) =>
  Number((await ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades WHERE mint IN {m:Array(String)}", { m: mints }))[0]!.n);

describe("one transaction that cannot be stored", () => {
  test("a pool created with a NUL in its name is stored through the webhook, the NUL removed", async () => {
    const p = await testPlatform(registryWith([{ role: "launch", address: FIXTURE_CONFIG }]));
    const element = JSON.parse(readFileSync(`${FIXTURES}helius-devnet/dbc-create-pool.raw.json`, "utf8"));
    // the recorded creation, its name rewritten as a creator could have written it
    const ix = element.transaction.message.instructions[0];
    const decoded = DBC.coder.instruction.decode(Buffer.from(bs58.decode(ix.data))) as { name: string; data: { params: Record<string, unknown> } };
    ix.data = bs58.encode(DBC.coder.instruction.encode(decoded.name, { params: { ...decoded.data.params, name: "Fuck Around\u0000 Find Out" } }));
    const res = await p.postWebhook([element]);
    expect(res.status).toBe(200);
    const agent = (await p.call(`/v1/public/agents/${FIXTURE_MINT}`)).body;
    expect(agent.coinName).toBe("Fuck Around Find Out");
  });

  test("in-process: it is set aside in sink_dead_letters and the rest of its write is stored; the webhook answers 200", async () => {
    const SEED = 61;
    const configs = fixtureSimConfigs(SEED);
    const p = await testPlatform(simulatedConfigRegistry(configs));
    const sim = createSimulator({ seed: SEED, configs, pools: 3 });
    const blocker = toEnvelopes(sim.next(50), "simulator");
    const elements = sim.next(300);
    const mints = sim.state().pools.map((pool) => pool.mint);
    // An envelope as an older ingest (or a Kafka message) could carry it: a NUL that
    // Postgres cannot store, on a pool of the platform.
    const bad = toEnvelopes(createSimulator({ seed: SEED + 1, configs, pools: 1 }).next(1), "helius")[0]!;
    const created = bad.facts.find((f): f is PoolCreated => f.kind === "pool_created")!;
    expect(created).toBeDefined();
    created.name = "bad\u0000name";
    const good = toEnvelopes(elements, "helius");
    const expectedTrades = [...blocker, ...good].flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;

    // Hold the first write, so the webhook's batch and the bad one are written together next.
    const ch = p.engines.ch;
    const insert = ch.insert;
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    let holding!: () => void;
    const reached = new Promise<void>((r) => (holding = r));
    const blockerSignatures = new Set(blocker.map((e) => e.signature));
    ch.insert = async (table, rows) => {
      if (table === "transactions" && rows.some((r) => blockerSignatures.has(r.signature as string))) {
        holding();
        await held;
      }
      return insert.call(ch, table, rows);
    };
    try {
      const blocked = p.sink.write(blocker);
      await reached;
      const webhook = p.postWebhook(elements);
      const aside = p.sink.write([bad]);
      await until("both batches queued", async () => ((await markedInFlight(p.engines.sql, [bad.signature, good[0]!.signature])).size === 2 ? true : undefined));
      letGo();
      await blocked;
      expect((await webhook).status).toBe(200);
      const result = await aside;
      expect(result.rejected.map((r) => r.envelope.signature)).toEqual([bad.signature]);
    } finally {
      ch.insert = insert;
      letGo();
    }
    expect(await trades(ch, mints)).toBe(expectedTrades);
    const [row] = await deadLetters([bad.signature]);
    expect(row!.reason).toMatch(/0x00|\\u0000/);
    expect(JSON.parse(row!.envelope).facts.find((f: { kind: string }) => f.kind === "pool_created").name).toBe("bad\u0000name");
    expect(p.metrics.deadLettered).toBe(1);
    expect((await p.call("/metrics")).body).toContain("acp_sink_dead_letters_total 1");
  });

  test("an engine down fails the whole write and sets nothing aside", async () => {
    const SEED = 71;
    const engines = await testEngines();
    const configs = fixtureSimConfigs(SEED);
    const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(configs));
    const envelopes = toEnvelopes(createSimulator({ seed: SEED, configs, pools: 2 }).next(200), "simulator");
    const down: ClickHouse = {
      ...engines.ch,
      query: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:8123");
      },
      command: engines.ch.command.bind(engines.ch),
      insert: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:8123");
      },
    };
    const metrics = createMetrics();
    const sink = createFactSink({ ch: down, sql: engines.sql, registry, metrics, log: createLogger("error") });
    await expect(sink.write(envelopes.slice(0, 100))).rejects.toThrow(/ECONNREFUSED/);
    await expect(sink.write([envelopes[100]!])).rejects.toThrow(/ECONNREFUSED/);
    expect((await deadLetters(envelopes.map((e) => e.signature))).length).toBe(0);
    expect(metrics.deadLettered).toBe(0);
  });
});
