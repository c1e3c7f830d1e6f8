import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { randomBytes } from "node:crypto";
import { testEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { fixtureSimConfigs } from "../ingest/simulator";
import type { Fact, Migration, Trade } from "../ingest/contract/facts";
import type { TxEnvelope } from "../ingest/contract/envelope";
import { PoolRegistry } from "./platform/registry";
import { createMetrics } from "./metrics";
import { createFactSink } from "./sink";
import { factToJson } from "./classify";

const address = () => bs58.encode(randomBytes(32));
const signature = () => bs58.encode(randomBytes(64));
const SLOT = 340_000_000;
const envelope = (facts: Fact[], sig = facts[0]!.signature): TxEnvelope => ({
  source: "helius", receivedAt: Date.now(), signature: sig, slot: SLOT, blockTime: 1_760_000_000,
  status: "decoded", facts, unknownCount: 0, errorCount: 0, detail: "", payload: "",
});
const key = (sig: string) => ({ signature: sig, ix: 0, inner: -1, slot: SLOT, blockTime: 1_760_000_000 });
const dammTrade = (pool: string): Trade => ({
  ...key(signature()), kind: "trade", venue: "damm_v2", pool, config: "", mint: "", quoteMint: "So11111111111111111111111111111111111111112",
  side: "buy", trader: address(), amountQuote: 1_000_000n, amountBase: 5_000n, sqrtPrice: 1n << 64n, quoteReserve: 0n,
  migrationThreshold: 0n, tradingFee: 0n, protocolFee: 0n, referralFee: 0n, feesIn: "quote",
});

async function setUp(parkedMaxAgeMs?: number) {
  const engines = await testEngines();
  const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(fixtureSimConfigs(91)));
  const metrics = createMetrics();
  const sink = createFactSink({ ...engines, registry, metrics, log: createLogger("error"), parkedMaxAgeMs });
  const parkedFor = async (waitsFor: string) => (await engines.sql`SELECT fact_key FROM parked_facts WHERE waits_for = ${waitsFor}`).length;
  return { engines, metrics, sink, parkedFor };
}

describe("parked facts that can never match", () => {
  test("are dropped, and counted, when their pool turns out not to be the platform's", async () => {
    const { metrics, sink, parkedFor } = await setUp();
    const pool = address();
    await sink.write([envelope([dammTrade(pool)])]);
    expect(await parkedFor(pool)).toBe(1);
    // the DBC pool of another launchpad's config migrated into it
    const migration: Migration = { ...key(signature()), kind: "migration", pool: address(), config: address(), mint: address(), quoteMint: "", dammPool: pool, sqrtPrice: 0n };
    // and in the same batch, one more trade on it: not parked at all
    await sink.write([envelope([migration]), envelope([dammTrade(pool)])]);
    expect(await parkedFor(pool)).toBe(0);
    expect(metrics.parkedExpired).toBe(1);
  });

  test("are dropped, and counted, once they have waited longer than the limit", async () => {
    const { engines, metrics, sink, parkedFor } = await setUp(7 * 86_400_000);
    const old = dammTrade(address());
    const recent = dammTrade(address());
    const row = (f: Trade, age: string) => ({ fact_key: `${f.signature}:${f.ix}:${f.inner}`, waits_for: f.pool, fact: factToJson(f), age });
    for (const r of [row(old, "8 days"), row(recent, "6 days")])
      await engines.sql`INSERT INTO parked_facts (fact_key, waits_for, fact, parked_at) VALUES (${r.fact_key}, ${r.waits_for}, ${engines.sql.json(r.fact as never)}, now() - ${r.age}::interval)`;
    await sink.write([envelope([dammTrade(address())])]);
    await sink.settled();
    expect(await parkedFor(old.pool)).toBe(0);
    expect(await parkedFor(recent.pool)).toBe(1);
    expect(metrics.parkedExpired).toBe(1);
  });
});
