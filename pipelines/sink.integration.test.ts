import { describe, expect, test } from "bun:test";
import { testEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import type { ClickHouse } from "../infra/clickhouse";
import { createSimulator, fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { toEnvelopes } from "../ingest/helius/handle";
import { PoolRegistry } from "./platform/registry";
import { createMetrics } from "./metrics";
import { createFactSink } from "./sink";
import { markedInFlight } from "./in-flight";
import { until } from "../infra/testing/wait";

const SEED = 23;

/**
 * A ClickHouse whose insert into `table` fails while `failing()` says so, and which
 * answers no query once it has (the server is gone; the inserts already sent finish):
 * a write that dies half-way.
 */
function failingInsert(ch: ClickHouse, table: string, failing: () => boolean = () => true): ClickHouse {
  let broke = false;
  const gone = () => {
    if (broke && failing()) throw new Error("injected: connection lost");
  };
  return {
    ...ch,
    query: (async (sql: string, params?: Record<string, unknown>) => (gone(), ch.query(sql, params))) as ClickHouse["query"],
    command: ch.command.bind(ch),
    async insert(t, rows) {
      if (t === table && failing()) {
        broke = true;
        throw new Error(`injected failure inserting into ${t}`);
      }
      return ch.insert(t, rows);
    },
  };
}

async function counts(ch: ClickHouse, mints: string[]) {
  return ch.query(
    `SELECT
       (SELECT toString(count()) FROM trades WHERE mint IN {m:Array(String)}) AS trades,
       (SELECT toString(sum(trades)) FROM candles_1m WHERE mint IN {m:Array(String)}) AS candle_trades,
       (SELECT toString(sum(volume_sol)) FROM candles_1m WHERE mint IN {m:Array(String)}) AS candle_volume,
       (SELECT toString(sum(trades)) FROM market_state WHERE mint IN {m:Array(String)}) AS market_trades,
       (SELECT toString(count()) FROM trade_feed WHERE mint IN {m:Array(String)}) AS feed_trades,
       (SELECT toString(sum(volume_sol)) FROM volume_1m WHERE mint IN {m:Array(String)}) AS minute_volume,
       (SELECT toString(count()) FROM fee_claims WHERE mint IN {m:Array(String)}) AS claims,
       (SELECT toString(count()) FROM fee_claims_usd WHERE mint IN {m:Array(String)}) AS claims_priced,
       (SELECT toString(count()) FROM fee_claim_feed WHERE mint IN {m:Array(String)}) AS claim_feed,
       (SELECT toString(sum(burned)) FROM burn_totals WHERE mint IN {m:Array(String)}) AS burned,
       (SELECT toString(count()) FROM token_balances WHERE mint IN {m:Array(String)}) AS balances`,
    { m: mints },
  );
}

/** 900 simulated transactions of three coins of `seed`, their fee claims counted, and a sink's dependencies. */
async function withClaims(seed: number) {
  const engines = await testEngines();
  const configs = fixtureSimConfigs(seed);
  const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(configs));
  const sim = createSimulator({ seed, configs, pools: 3 });
  const envelopes = toEnvelopes(sim.next(900), "simulator");
  const mints = sim.state().pools.map((p) => p.mint);
  const expectedClaims = envelopes.flatMap((e) => e.facts).filter((f) => f.kind === "fee_claim" || f.kind === "surplus_withdrawal").length;
  const deps = { sql: engines.sql, registry, metrics: createMetrics(), log: createLogger("error") };
  return { engines, envelopes, mints, expectedClaims, deps };
}

describe("sink: a write that dies half-way, then redelivery", () => {
  test("facts already inserted are not counted twice; missing ones are completed", async () => {
    const engines = await testEngines();
    const configs = fixtureSimConfigs(SEED);
    const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(configs));
    const sim = createSimulator({ seed: SEED, configs, pools: 4 });
    const envelopes = toEnvelopes(sim.next(1500), "simulator");
    const mints = sim.state().pools.map((p) => p.mint);
    const expectedTrades = envelopes.flatMap((e) => e.facts).filter((f) => f.kind === "trade").length;
    const deps = { sql: engines.sql, registry, metrics: createMetrics(), log: createLogger("error") };

    // The first attempt stores every fact table, but recording the transactions fails.
    const broken = createFactSink({ ...deps, ch: failingInsert(engines.ch, "transactions") });
    await expect(broken.write(envelopes)).rejects.toThrow(/injected failure/);
    const afterCrash = await counts(engines.ch, mints);
    expect(afterCrash[0]).toMatchObject({ trades: String(expectedTrades) });

    // A second attempt stores everything but the fee claims.
    const brokenAgain = createFactSink({ ...deps, ch: failingInsert(engines.ch, "fee_claims") });
    await expect(brokenAgain.write(envelopes.slice().reverse())).rejects.toThrow(/injected failure/);

    // Redelivery, shuffled and with duplicates, completes without double counting.
    const sink = createFactSink({ ...deps, ch: engines.ch });
    await sink.write([...envelopes.slice(700), ...envelopes, ...envelopes.slice(0, 300)]);
    const final = await counts(engines.ch, mints);
    expect(final).toEqual(afterCrash);
    expect(final[0]).toMatchObject({ trades: String(expectedTrades), candle_trades: String(expectedTrades), market_trades: String(expectedTrades), feed_trades: String(expectedTrades) });
    await sink.settled();
    expect(await markedInFlight(engines.sql, envelopes.map((e) => e.signature))).toEqual(new Set());

    // And once recorded, another delivery changes nothing.
    await sink.write(envelopes);
    expect(await counts(engines.ch, mints)).toEqual(final);
  });

  test("a write whose ledger rows landed but one fact table failed is completed by the redelivery, not skipped", async () => {
    const { engines, envelopes, mints, expectedClaims, deps } = await withClaims(SEED + 1);
    expect(expectedClaims).toBeGreaterThan(0);

    const broken = createFactSink({ ...deps, ch: failingInsert(engines.ch, "fee_claims") });
    await expect(broken.write(envelopes)).rejects.toThrow(/injected failure/);
    const ledger = async () =>
      Number((await engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM transactions FINAL WHERE signature IN {s:Array(String)}", { s: envelopes.map((e) => e.signature) }))[0]!.n);
    expect(await ledger()).toBe(envelopes.length); // recorded, yet one table is missing
    expect((await counts(engines.ch, mints))[0]).toMatchObject({ claims: "0" });

    const sink = createFactSink({ ...deps, ch: engines.ch });
    await sink.write(envelopes);
    await sink.write(envelopes);
    expect((await counts(engines.ch, mints))[0]).toMatchObject({ claims: String(expectedClaims), claims_priced: String(expectedClaims) });
    expect(await ledger()).toBe(envelopes.length);
  });

  test("a write that stored the fee claims but not their priced rows is completed by the redelivery, once", async () => {
    const fixture = await withClaims(SEED + 3);
    const { engines, envelopes, mints, deps } = fixture;
    const expectedClaims = String(fixture.expectedClaims);

    const broken = createFactSink({ ...deps, ch: failingInsert(engines.ch, "fee_claims_usd") });
    await expect(broken.write(envelopes)).rejects.toThrow(/injected failure/);
    expect((await counts(engines.ch, mints))[0]).toMatchObject({ claims: expectedClaims, claims_priced: "0", claim_feed: "0" });

    const sink = createFactSink({ ...deps, ch: engines.ch });
    await sink.write(envelopes);
    await sink.write(envelopes.slice().reverse());
    const [done] = await counts(engines.ch, mints);
    expect(done).toMatchObject({ claims: expectedClaims, claims_priced: expectedClaims });
    // the claims' config is the coin's (mirrored before them), each claim priced once
    const unconfigured = await engines.ch.query("SELECT signature FROM fee_claims_usd WHERE mint IN {m:Array(String)} AND config = ''", { m: mints });
    expect(unconfigured).toEqual([]);
  });

  test("a batch that marked its transactions in flight before another write failed on the same transactions is checked in full", async () => {
    const engines = await testEngines();
    const configs = fixtureSimConfigs(SEED + 2);
    const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(configs));
    const sim = createSimulator({ seed: SEED + 2, configs, pools: 3 });
    const envelopes = toEnvelopes(sim.next(900), "simulator");
    const mints = sim.state().pools.map((p) => p.mint);
    const facts = envelopes.flatMap((e) => e.facts);
    const expected = {
      trades: String(facts.filter((f) => f.kind === "trade").length),
      claims: String(facts.filter((f) => f.kind === "fee_claim" || f.kind === "surplus_withdrawal").length),
    };
    // The first marking's answer is held back until the second write has failed: its batch
    // is queued behind a later one.
    let held = false;
    let marked!: () => void;
    const firstMarked = new Promise<void>((r) => (marked = r));
    let letGo!: () => void;
    const released = new Promise<void>((r) => (letGo = r));
    const slowFirstMarking = new Proxy(engines.sql, {
      apply(target, self, args: unknown[]) {
        const query = Reflect.apply(target, self, args) as Promise<unknown>;
        const text = Array.isArray(args[0]) ? (args[0] as string[]).join("?") : "";
        if (held || !text.includes("INSERT INTO sink_in_flight")) return query;
        held = true;
        return query.then(async (rows) => {
          marked();
          await released;
          return rows;
        });
      },
    });
    let secondFailed = false;
    const sink = createFactSink({ sql: slowFirstMarking, registry, metrics: createMetrics(), log: createLogger("error"), ch: failingInsert(engines.ch, "fee_claims", () => !secondFailed) });

    const first = sink.write(envelopes); // marks every signature, answer held back
    await firstMarked;
    // The same transactions again: every mark is there, so all are checked; the write stores
    // the trades and the ledger rows, then fails on the fee claims.
    await expect(sink.write(envelopes)).rejects.toThrow(/injected failure/);
    secondFailed = true;
    letGo();
    // The first batch holds the marks, but a write failed since it made them: it must not
    // take the ledger rows for "stored" (the fee claims are missing), nor insert trades again.
    await first;
    expect((await counts(engines.ch, mints))[0]).toMatchObject({ trades: expected.trades, market_trades: expected.trades, claims: expected.claims, claims_priced: expected.claims });
  });
});

describe("sink: gathering a write under load", () => {
  // seeds of their own: the tests above leave in-flight marks and stored transactions of SEED + 1 to SEED + 3 behind,
  // which would make these batches "already in flight" (checked table by table) or duplicates
  const GATHER_SEED = 7919;
  async function setUp(seed: number, gather: { minEnvelopes?: number; gapMs?: number; maxWaitMs?: number }) {
    const engines = await testEngines();
    const configs = fixtureSimConfigs(seed);
    const registry = await PoolRegistry.load(engines.sql, simulatedConfigRegistry(configs));
    const sim = createSimulator({ seed, configs, pools: 2 });
    const batch = () => toEnvelopes(JSON.parse(JSON.stringify(sim.next(5))), "simulator");
    const metrics = createMetrics();
    // the first write's inserts wait for `release` (so a batch can be queued behind it, whatever the machine's speed);
    // `writing` resolves once a write has reached its inserts
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const writing = new Promise<void>((r) => (started = r));
    const ch: ClickHouse = { ...engines.ch, insert: async (table, rows) => (started(), await released, engines.ch.insert(table, rows)) };
    const sink = createFactSink({ ...engines, ch, registry, metrics, log: createLogger("error"), gather });
    return { sink, metrics, batch, release, writing, sql: engines.sql };
  }

  test("batches arriving while a write runs wait for the callers coming back, and go together", async () => {
    const { sink, metrics, batch, release, writing, sql } = await setUp(GATHER_SEED, { minEnvelopes: 1_000, gapMs: 400, maxWaitMs: 5_000 });
    const [a, b, c] = [batch(), batch(), batch()];
    const first = sink.write(a);
    // `b` only once `a`'s write runs: two batches' in-flight marks are two statements side by side, and the one made
    // second may land first (it did in every full-suite run, where the pool's connections are warm and busy), which
    // queued `b` ahead of `a` and left `a` to wait out the gathering alone
    await writing;
    const second = sink.write(b); // arrives while `a` is written: the sink is busy
    // `b` is queued once its in-flight marks are made
    const bSigs = b.map((e) => e.signature);
    await until("the second batch's in-flight marks", async () => ((await markedInFlight(sql, bSigs)).size === new Set(bSigs).size ? true : undefined), 10_000);
    await Bun.sleep(20);
    release();
    await first;
    expect(metrics.batches).toBe(1);
    // `a`'s caller comes back; without gathering `b` would have been written alone by now
    const third = sink.write(c);
    await Promise.all([second, third]);
    expect(metrics.batches).toBe(2); // `b` and `c`: one write
  });

  test("one caller writing batch after batch is never held back", async () => {
    // were a lone caller's batch held, each write would wait the ten minutes and the test time out
    const { sink, metrics, batch, release } = await setUp(GATHER_SEED + 1, { minEnvelopes: 1_000, gapMs: 600_000, maxWaitMs: 600_000 });
    release();
    for (let i = 0; i < 3; i++) await sink.write(batch());
    expect(metrics.batches).toBe(3);
  }, 60_000);
});
