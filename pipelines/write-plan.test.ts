import { describe, expect, test } from "bun:test";
import { createSimulator, fixtureSimConfigs, simulatedPlatform } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { toEnvelopes } from "../ingest/helius/handle";
import type { Fact, Migration, PoolCreated, TokenBalanceChange, Trade } from "../ingest/contract/facts";
import type { TxEnvelope } from "../ingest/contract/envelope";
import { PoolRegistry } from "./platform/registry";
import { factKey } from "./classify";
import { planBatch, planRows, releasedBy } from "./write-plan";

const SEED = 5;
const configs = fixtureSimConfigs(SEED);
const registry = () => new PoolRegistry(simulatedConfigRegistry(configs));
const envelopes = toEnvelopes(createSimulator({ seed: SEED, configs, pools: 2 }).next(120), "simulator");
const none = new Set<string>();
const isTrade = (f: Fact): f is Trade => f.kind === "trade";
const tradeEnvelope = envelopes.find((e) => e.facts.some(isTrade))!;
const envelope = (facts: Fact[], over: Partial<TxEnvelope> = {}): TxEnvelope => ({
  source: "helius", receivedAt: 0, signature: facts[0]!.signature, slot: 1, blockTime: 1, status: "decoded",
  facts, unknownCount: 0, errorCount: 0, detail: "", payload: "", ...over,
});
const dammTrade = (signature: string, pool: string): Trade => ({ ...(tradeEnvelope.facts.find(isTrade)!), signature, venue: "damm_v2", pool, config: "", mint: "" });

describe("planBatch", () => {
  test("skips what the ledger holds, checks what is in flight or backfilled, and counts repeats", () => {
    const [a, b, c, d] = envelopes;
    const stored = new Set([a!.signature, b!.signature, d!.signature]);
    const plan = planBatch([a!, b!, c!, c!, { ...d!, source: "backfill" }], stored, new Set([b!.signature]), registry());
    expect(plan.fresh.map((e) => e.signature)).toEqual([b!.signature, c!.signature, d!.signature]);
    expect(plan.skipped).toBe(2); // a stored, c repeated
    expect([...plan.suspects]).toEqual([b!.signature, d!.signature]);
    expect(plan.signatures).toEqual([a!, b!, c!, d!].map((e) => e.signature));
  });

  test("a migration from another launchpad's config makes its pool foreign: a trade on it is dropped, not parked", () => {
    const pool = "ForeignDammPoo1111111111111111111111111111";
    const migration: Migration = { signature: "m", ix: 0, inner: -1, slot: 1, blockTime: 1, kind: "migration", pool: "p", config: "other-config", mint: "x", quoteMint: "", dammPool: pool, sqrtPrice: 0n };
    const plan = planBatch([envelope([migration]), envelope([dammTrade("t", pool)])], none, none, registry());
    expect(plan.parked).toEqual([]);
    expect(plan.dropped).toBe(2);
    expect(plan.foreign).toContain(pool);
  });
});

describe("planRows", () => {
  test("rows of suspect transactions are checked, the rest go straight in; the ledger gets only what it lacks", () => {
    const pools = registry();
    const stored = new Set([envelopes[0]!.signature]);
    const batch = planBatch(envelopes, stored, new Set([envelopes[0]!.signature]), pools);
    const plan = planRows(batch, [], pools);
    const trades = envelopes.flatMap((e) => e.facts).filter(isTrade);
    expect(plan.tables.trades.clear.length + plan.tables.trades.check.length).toBe(trades.length);
    expect(plan.tables.trades.check.every((r) => r.signature === envelopes[0]!.signature)).toBe(true);
    expect(plan.tables.trades.clear.some((r) => r.signature === envelopes[0]!.signature)).toBe(false);
    expect(plan.ledger.map((r) => r.signature)).toEqual(envelopes.slice(1).map((e) => e.signature));
    const created = envelopes.flatMap((e) => e.facts).filter((f) => f.kind === "pool_created");
    expect(plan.agents.map((a) => a.mint).sort()).toEqual([...new Set(created.map((f) => f.mint))].sort());
    expect(plan.tables.activity.clear.length).toBe(plan.agents.length);
  });

  test("parked facts released by a new pool are replayed as suspects, and unparked once accepted", () => {
    const pools = registry();
    // a pool the batch makes known, and a fact parked for it (and one still waiting elsewhere)
    const created = envelopes.flatMap((e) => e.facts).find((f) => f.kind === "pool_created")!;
    const batch = planBatch(envelopes.filter((e) => e.facts.includes(created)), none, none, pools);
    expect(releasedBy(batch.newPools)).toContain(created.kind === "pool_created" ? created.pool : "");
    for (const p of batch.newPools) pools.remember(p);
    const waiting = dammTrade("replayed", "UnknownPoo11111111111111111111111111111111");
    const released = { ...waiting, signature: "released", venue: "dbc" as const, pool: created.kind === "pool_created" ? created.pool : "", config: created.kind === "pool_created" ? created.config : "" };
    const plan = planRows(batch, [{ key: factKey(released), fact: released }, { key: factKey(waiting), fact: waiting }], pools);
    expect(plan.tables.trades.check.map((r) => r.signature)).toEqual(["released"]);
    expect(plan.unpark).toEqual([factKey(released)]);
    expect(plan.park.map((p) => p.fact.signature)).toEqual(["replayed"]);
  });
});

describe("token balances", () => {
  const WSOL = "So11111111111111111111111111111111111111112";
  const created = envelopes.flatMap((e) => e.facts).find((f): f is PoolCreated => f.kind === "pool_created")!;
  const balance = (signature: string, ix: number, mint: string, delta: bigint): TokenBalanceChange => ({
    kind: "token_balance", signature, ix, inner: -2, slot: 7, blockTime: 1_700_000_000, mint, account: `acct${ix}`, owner: `owner${ix}`, delta, decimals: 6,
  });

  test("a platform coin's balances become 'tx' rows with the delta; other tokens' are neither parked nor dropped", () => {
    const pools = registry();
    const moved = envelope([balance("b", 0, created.mint, 1234n), balance("b", 1, WSOL, -5n), balance("b", 2, "ForeignMint1111111111111111111111111111111", 9n)]);
    // the coin is created in the same batch: the overlay makes it known
    const batch = planBatch([envelopes.find((e) => e.facts.includes(created))!, moved], none, none, pools);
    expect(batch.parked).toEqual([]);
    expect(batch.dropped).toBe(0);
    const plan = planRows(batch, [], pools);
    expect(plan.tables.token_balances.clear.filter((r) => r.signature === "b")).toEqual([
      { signature: "b", ix: 0, inner: -2, slot: 7, at: 1_700_000_000, mint: created.mint, account: "acct0", owner: "owner0", kind: "tx", amount: 1234n, decimals: 6 },
    ]);
  });

  test("a coin the registry knows is accepted in a later batch; a backfilled one is checked table by table", () => {
    const pools = registry();
    for (const p of planBatch(envelopes, none, none, pools).newPools) pools.remember(p);
    const plan = planRows(planBatch([envelope([balance("c", 0, created.mint, -1n)], { source: "backfill" })], none, none, pools), [], pools);
    expect(plan.tables.token_balances.check.map((r) => [r.signature, r.amount])).toEqual([["c", -1n]]);
    expect(plan.tables.token_balances.clear).toEqual([]);
  });
});

describe("the decode scope (ingest/contract/fact-scope.ts)", () => {
  test("decoding with the platform's scope changes no row: simulated traffic planned with every fact and with the scope", () => {
    const seed = 23;
    const simConfigs = fixtureSimConfigs(seed);
    const platform = simulatedPlatform(seed, simConfigs);
    const treasury = { treasuryAddress: platform.treasury, platformTokenMint: platform.platformTokenMint };
    const bodies = createSimulator({ seed, configs: simConfigs, pools: 6 });
    const every = new PoolRegistry(simulatedConfigRegistry(simConfigs), treasury);
    const scoped = new PoolRegistry(simulatedConfigRegistry(simConfigs), treasury);
    // as the all-in-one wires it: the scope as of start, learning the coins the sink stores
    const scope = scoped.factScope();
    scoped.onNewPool((p) => scope.coins!.add(p.mint));
    const seen = { facts: 0, kept: 0, balances: 0, flows: new Set<string>() };
    for (let i = 0; i < 40; i++) {
      const body = JSON.parse(JSON.stringify(bodies.next(100)));
      const all = toEnvelopes(body, "helius", 0);
      const few = toEnvelopes(body, "helius", 0, { scope });
      const planned = [all, few].map((batch, k) => {
        const pools = k === 0 ? every : scoped;
        const plan = planBatch(batch, none, none, pools);
        for (const p of plan.newPools) pools.remember(p);
        return planRows(plan, [], pools);
      });
      expect(planned[1]!.tables).toEqual(planned[0]!.tables);
      expect(planned[1]!.agents).toEqual(planned[0]!.agents);
      expect(planned[1]!.park).toEqual(planned[0]!.park);
      expect(planned[1]!.dropped).toBe(planned[0]!.dropped);
      seen.facts += all.reduce((n, e) => n + e.facts.length, 0);
      seen.kept += few.reduce((n, e) => n + e.facts.length, 0);
      for (const f of planned[0]!.tables.treasury_flows.clear) seen.flows.add(f.kind);
      seen.balances += planned[0]!.tables.token_balances.clear.length;
    }
    // the traffic had what the scope must keep, and the scope left most facts out
    expect([...seen.flows].sort()).toEqual(["buyback", "transfer"]);
    expect(seen.balances).toBeGreaterThan(0);
    expect(seen.kept).toBeLessThan(seen.facts / 2);
  });
});
