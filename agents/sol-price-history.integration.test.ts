/**
 * The SOL price history on real engines: the job's one step (recordSolPrice) with an
 * injected clock, the fixed-price test double as the source; the job among the
 * background jobs; migration 0008 on an install that predates it.
 */
import { describe, expect, test } from "bun:test";
import { testEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { loadConfig } from "../infra/config";
import { migrateClickhouse } from "../infra/migrate";
import { createSolPriceService, simulatedSource, type PriceSource } from "../infra/sol-price";
import { recordSolPrice, recordedSolPrices } from "../infra/sol-price/history";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { startAgentBackground, type LaunchTracking } from "./background";

const log = createLogger("error");
// minutes of 2031, after every other test's trades and prices
const T0 = Date.UTC(2031, 0, 1, 12, 0, 0);
const failing: PriceSource = { name: "oracle", read: async () => Promise.reject(new Error("oracle down")) };

describe("SOL price history", () => {
  test("one row per minute: the minute of the clock, a minute written twice keeps one row (the later), the source recorded", async () => {
    const { ch } = await testEngines();
    const at150 = createSolPriceService([fixedPriceSourceTestDouble(150)], log, 0);
    const at151 = createSolPriceService([fixedPriceSourceTestDouble(151.25)], log, 0);
    expect(await recordSolPrice({ ch, price: at150, nowMs: T0 + 1_000 })).toEqual({ minute: T0 / 1000, usd: 150, source: "exchange" });
    // the same minute again (another process, a restart): one row stays
    expect(await recordSolPrice({ ch, price: at151, nowMs: T0 + 59_999 })).toEqual({ minute: T0 / 1000, usd: 151.25, source: "exchange" });
    expect(await recordSolPrice({ ch, price: at150, nowMs: T0 + 60_000 })).toEqual({ minute: T0 / 1000 + 60, usd: 150, source: "exchange" });
    expect(await recordedSolPrices(ch, T0 / 1000, T0 / 1000 + 3600)).toEqual([
      { minute: T0 / 1000, usd: 151.25, source: "exchange" },
      { minute: T0 / 1000 + 60, usd: 150, source: "exchange" },
    ]);
    // merged, the table itself holds one row for the minute
    await ch.command("OPTIMIZE TABLE sol_price_1m FINAL");
    const [n] = await ch.query<{ n: string }>("SELECT toString(count()) AS n FROM sol_price_1m WHERE minute = toDateTime({m:UInt32}, 'UTC')", { m: T0 / 1000 });
    expect(n!.n).toBe("1");
  });

  test("the demo's simulated price is recorded as simulated", async () => {
    const { ch } = await testEngines();
    const minute = T0 / 1000 + 30 * 60;
    const price = createSolPriceService([simulatedSource(7)], log, 0);
    const row = await recordSolPrice({ ch, price, nowMs: minute * 1000, simulated: true });
    expect(row).toEqual({ minute, usd: expect.any(Number), source: "simulated" });
    expect(await recordedSolPrices(ch, minute, minute + 60)).toEqual([row!]);
  });

  test("no source answers: nothing is written (a gap, not a zero); a later source in the list is used", async () => {
    const { ch } = await testEngines();
    const minute = T0 / 1000 + 10 * 60;
    expect(await recordSolPrice({ ch, price: createSolPriceService([failing], log, 0), nowMs: minute * 1000 })).toBeNull();
    expect(await recordSolPrice({ ch, price: createSolPriceService([], log, 0), nowMs: minute * 1000 })).toBeNull();
    expect(await recordedSolPrices(ch, minute, minute + 60)).toEqual([]);
    const fallback = createSolPriceService([failing, fixedPriceSourceTestDouble(149.5)], log, 0);
    expect(await recordSolPrice({ ch, price: fallback, nowMs: minute * 1000 + 5 })).toEqual({ minute, usd: 149.5, source: "exchange" });
  });

  test("a failed write throws to the scheduler (which logs it), never a partial row", async () => {
    const { ch } = await testEngines();
    const broken = { ...ch, insert: () => Promise.reject(new Error("clickhouse down")) };
    const price = createSolPriceService([fixedPriceSourceTestDouble(150)], log, 0);
    await expect(recordSolPrice({ ch: broken, price, nowMs: T0 + 20 * 60_000 })).rejects.toThrow("clickhouse down");
    expect(await recordedSolPrices(ch, T0 / 1000 + 20 * 60, T0 / 1000 + 21 * 60)).toEqual([]);
  });

  test("the background jobs record the price when given a price service, and not otherwise", async () => {
    const { ch, sql } = await testEngines();
    const config = loadConfig({ PUBLIC_BASE_URL: "https://agents.example", SOLANA_CLUSTER: "devnet", SIMULATOR: "off" });
    const launches = { chain: null, service: null } as unknown as LaunchTracking;
    const price = createSolPriceService([fixedPriceSourceTestDouble(150)], log, 0);
    const withHistory = startAgentBackground({ config, sql, rpc: null, log, launches, simulated: true, priceHistory: { ch, price } });
    const without = startAgentBackground({ config, sql, rpc: null, log, launches, simulated: true });
    withHistory.stop();
    without.stop();
    expect(withHistory.names).toEqual(["sol-price-history"]);
    expect(without.names).toEqual([]);
  });

  test("migration 0008 applies on an install that predates it; the data already there stays", async () => {
    const { ch, sql } = await testEngines();
    const trades = async () => (await ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades"))[0]!.n;
    const before = await trades();
    // the install as it was before 0008: no table, no record of the migration
    await ch.command("DROP TABLE IF EXISTS sol_price_1m");
    await ch.command("ALTER TABLE schema_migrations DELETE WHERE name = '0008_sol_price_1m.sql' SETTINGS mutations_sync = 2");
    expect(await migrateClickhouse(ch, log, sql)).toEqual(["0008_sol_price_1m.sql"]);
    expect(await migrateClickhouse(ch, log, sql)).toEqual([]);
    expect(await trades()).toBe(before);
    const price = createSolPriceService([fixedPriceSourceTestDouble(150)], log, 0);
    await recordSolPrice({ ch, price, nowMs: T0 });
    expect(await recordedSolPrices(ch, T0 / 1000, T0 / 1000 + 60)).toEqual([{ minute: T0 / 1000, usd: 150, source: "exchange" }]);
  });
});
