/**
 * The overview's topEarners kept between requests (top-earners.ts: the closed days grouped once,
 * checked at each read) against an independent ledger: every trade read back from `trades` (not
 * the rollups) and summed by the definition (api/README.md: the creator's side of each coin's
 * curve trading fees paid in lamports, over the whole UTC days the window touches, floored per
 * coin and config; hidden coins left out). The clock is moved by hand (days of 2036, which no
 * other file writes): a trade today, a late trade on a closed day, a day rollover, a coin from
 * beyond the candidates, a hidden coin and a coin of two configs each must give the ledger's
 * answer, and the closed days are grouped again exactly when they changed.
 */
import { describe, expect, test, beforeAll, afterAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { testEngines } from "../../infra/testing/engines";
import { createLogger } from "../../infra/log";
import { createSolPriceService } from "../../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../../compose/testing/platform";
import { fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { encodeBase58 } from "../../ingest/decoders/base58";
import { analyticsOverview, windowStart, type Range } from "./analytics-service";
import type { PublicDeps } from "../public/agents-service";
import type { ClickHouse } from "../../infra/clickhouse";

const address = () => encodeBase58(randomBytes(32));
const registry = simulatedConfigRegistry(fixtureSimConfigs(173, { creatorTradingFeePercentage: 37 })); // its own configs
const SOL = registry.all.filter((c) => c.quote.kind === "sol");
/** a config that is not one of the registry's SOL-quoted ones (its amounts are no lamports) */
const OTHER_CONFIG = encodeBase58(randomBytes(32));
const DAY = Math.floor(Date.UTC(2036, 2, 10) / 86_400_000); // "today" at first
const at = (day: number, hour: number) => (day * 86400 + hour * 3600) * 1000;

/** Whole UTC days: a day's first second. */
let slot = 1;
const trade = (mint: string, seconds: number, fee: number, config: string, o: { venue?: string; inBase?: number } = {}) => ({
  mint, slot: slot++, signature: encodeBase58(randomBytes(64)), ix: 0, inner: -1, at: seconds, venue: o.venue ?? "dbc", pool: address(), config,
  quote_mint: "So11111111111111111111111111111111111111112", side: "sell", trader: address(), amount_quote: fee * 100, amount_base: 1, sqrt_price: "1",
  quote_reserve: 1, migration_threshold: 1, trading_fee: fee, protocol_fee: 1, referral_fee: 0, base_decimals: 6, price_sol: 1, fee_in_base: o.inBase ?? 0,
});

/** The definition over the raw trades (`deps.configs`' SOL-quoted configs; `hidden` coins left out). */
async function ledger(deps: PublicDeps, range: Range, nowMs: number, hidden: string[]) {
  const rows = await deps.ch.query<{ mint: string; config: string; venue: string; t: number; tf: string; b: number }>(
    "SELECT mint, config, venue, toUnixTimestamp(at) AS t, toString(trading_fee) AS tf, fee_in_base AS b FROM trades",
  );
  const dayStart = Math.floor(windowStart(range, Math.floor(nowMs / 1000)) / 86400) * 86400;
  const pct = new Map(deps.configs.all.filter((c) => c.quote.kind === "sol").map((c) => [c.address, BigInt(c.creatorPct)]));
  const perCoin = new Map<string, Map<string, bigint>>();
  for (const r of rows) {
    if (r.t < dayStart || r.venue !== "dbc" || !pct.has(r.config) || hidden.includes(r.mint) || r.b === 1) continue;
    const m = perCoin.get(r.mint) ?? new Map<string, bigint>();
    m.set(r.config, (m.get(r.config) ?? 0n) + BigInt(r.tf));
    perCoin.set(r.mint, m);
  }
  return [...perCoin]
    .filter(([, m]) => [...m.values()].reduce((s, x) => s + x, 0n) > 0n)
    .map(([mint, m]) => ({ mint, lamports: [...m].reduce((s, [c, tf]) => s + (tf * pct.get(c)!) / 100n, 0n) }))
    .sort((a, b) => (a.lamports === b.lamports ? (a.mint < b.mint ? -1 : 1) : a.lamports > b.lamports ? -1 : 1))
    .slice(0, 10)
    .map((e) => ({ mint: e.mint, lamports: e.lamports.toString() }));
}
/** The overview's top earners at `nowMs`, checked against the ledger; returns them. */
async function matchesLedger(deps: PublicDeps, range: Range, nowMs: number, hidden: string[]) {
  const got = (await analyticsOverview(deps, range, nowMs)).topEarners.map((e) => ({ mint: e.mint, lamports: e.lamports }));
  expect({ range, nowMs, got }).toEqual({ range, nowMs, got: await ledger(deps, range, nowMs, hidden) });
  return got;
}

/** The overview's deps over the shared engines, its reads through `ch`. */
function depsOf(ch: ClickHouse, sql: PublicDeps["sql"], configs: PublicDeps["configs"]): PublicDeps {
  const log = createLogger("error");
  return { ch, sql, configs, price: createSolPriceService([fixedPriceSourceTestDouble(150)], log), publicBaseUrl: "https://agents.example", board: null as never };
}

describe("top earners kept between requests", () => {
  let ch: ClickHouse;
  let deps: PublicDeps;
  /** how many times the closed days were grouped (the GROUP BY of every coin's span rows) */
  let grouped = 0;
  const coins = Array.from({ length: 150 }, () => address());
  const hidden = address();
  const twoConfigs = address();

  const solTrade = (mint: string, seconds: number, fee: number, config = SOL[0]!.address, o: { venue?: string; inBase?: number } = {}) => trade(mint, seconds, fee, config, o);
  const insert = (rows: ReturnType<typeof trade>[]) => ch.insert("trades", rows);

  const matches = (range: Range, nowMs: number) => matchesLedger(deps, range, nowMs, [hidden]);

  beforeAll(async () => {
    const engines = await testEngines();
    const real = engines.ch;
    ch = {
      ...real,
      query: ((q: string, params?: Record<string, unknown>) => {
        if (/FROM coin_fees_span WHERE/.test(q) && /GROUP BY mint, config$/.test(q.trim()) && !/level = 0/.test(q)) grouped++;
        return real.query(q, params);
      }) as ClickHouse["query"],
    };
    deps = depsOf(ch, engines.sql, registry);
    expect(SOL.length).toBeGreaterThanOrEqual(2);
    // three closed days of trades: coin i earns less the greater i (ties between neighbours: the mint decides); a hidden coin
    // earns the most, a coin trades on two configs (each floored on its own), trades of another config, DAMM v2 and coin-fee trades count nowhere
    const rows: ReturnType<typeof trade>[] = [];
    for (let d = DAY - 3; d < DAY; d++)
      for (let i = 0; i < coins.length; i++) rows.push(solTrade(coins[i]!, d * 86400 + 3600 + i, 1_000_000 - Math.floor(i / 2) * 5_000 + (d % 3)));
    for (let d = DAY - 3; d <= DAY; d++) {
      rows.push(solTrade(hidden, d * 86400 + 7200, 90_000_000));
      rows.push(solTrade(twoConfigs, d * 86400 + 7200, 410_001, SOL[0]!.address), solTrade(twoConfigs, d * 86400 + 7300, 410_001, SOL[1]!.address));
      rows.push(solTrade(coins[149]!, d * 86400 + 7400, 80_000_000, OTHER_CONFIG), solTrade(coins[148]!, d * 86400 + 7400, 80_000_000, SOL[0]!.address, { venue: "damm_v2" }));
      rows.push(solTrade(coins[147]!, d * 86400 + 7500, 80_000_000, SOL[0]!.address, { inBase: 1 }));
    }
    // today: some coins trade a little
    for (let i = 0; i < 30; i++) rows.push(solTrade(coins[i * 3]!, DAY * 86400 + 600 + i, 7_001 + i));
    await insert(rows);
    await engines.sql`INSERT INTO agents (mint, coin_name, symbol, creator, vault, config, dbc_pool, created_at)
      VALUES (${hidden}, 'Hidden', 'HID', ${address().slice(0, 32)}, ${address().slice(0, 32)}, ${SOL[0]!.address}, ${address()}, now())`;
    await engines.sql`UPDATE agents SET hidden = true WHERE mint = ${hidden}`;
  });
  afterAll(async () => {
    await (await testEngines()).sql`DELETE FROM agents WHERE mint = ${hidden}`;
  });

  test("every range, then again from the kept sums (not grouped again)", async () => {
    for (const range of ["24h", "7d", "30d", "all"] as const) await matches(range, at(DAY, 12));
    const first = grouped;
    expect(first).toBeGreaterThan(0);
    for (const range of ["24h", "7d", "30d", "all"] as const) await matches(range, at(DAY, 13));
    expect(grouped).toBe(first);
  });

  test("a trade today lifts a coin from beyond the candidates to the top; a small one leaves it out; the closed days are not grouped again", async () => {
    await matches("7d", at(DAY, 12));
    const before = grouped;
    // coin 140 ranks 141st on the closed days (beyond the first 100 candidates)
    await insert([solTrade(coins[140]!, DAY * 86400 + 5000, 2_000_000)]);
    const top = await matches("7d", at(DAY, 14));
    expect(top.map((e) => e.mint)).toContain(coins[140]!);
    await insert([solTrade(coins[130]!, DAY * 86400 + 5000, 1_000)]);
    expect((await matches("7d", at(DAY, 14))).map((e) => e.mint)).not.toContain(coins[130]!);
    expect(grouped).toBe(before);
  });

  test("a late trade on a closed day changes the ranking: the closed days are grouped again", async () => {
    const first = await matches("30d", at(DAY, 15));
    const before = grouped;
    expect(first[0]!.mint).not.toBe(coins[120]!);
    await insert([solTrade(coins[120]!, (DAY - 2) * 86400 + 50, 30_000_000)]);
    const after = await matches("30d", at(DAY, 15));
    expect(after[0]!.mint).toBe(coins[120]!);
    expect(grouped).toBe(before + 1);
    // a late trade without a fee changes no figure: nothing grouped again
    await insert([solTrade(coins[121]!, (DAY - 2) * 86400 + 60, 0)]);
    await matches("30d", at(DAY, 15));
    expect(grouped).toBe(before + 1);
  });

  test("the day rolls over: yesterday becomes a closed day; at 23:00 the 24h window is today alone", async () => {
    await matches("7d", at(DAY, 16));
    const before = grouped;
    await matches("7d", at(DAY + 1, 1));
    expect(grouped).toBe(before + 1);
    // a trade of the new day, then a late one on the day just closed
    await insert([solTrade(coins[60]!, (DAY + 1) * 86400 + 1800, 40_000_000)]);
    expect((await matches("7d", at(DAY + 1, 2)))[0]!.mint).toBe(coins[60]!);
    await insert([solTrade(coins[61]!, DAY * 86400 + 86_000, 95_000_000)]);
    expect((await matches("7d", at(DAY + 1, 2)))[0]!.mint).toBe(coins[61]!);
    for (const range of ["24h", "30d", "all"] as const) await matches(range, at(DAY + 1, 23));
    await matches("24h", at(DAY + 1, 22));
  });
});

describe("top earners of configs giving creators nothing: every coin earns 0, ranked by its mint", () => {
  const registry0 = simulatedConfigRegistry(fixtureSimConfigs(179, { creatorTradingFeePercentage: 0 })); // its own configs
  const config = registry0.launch!.address;
  const day = DAY + 100; // days of its own
  let deps: PublicDeps;
  const small = () => `1${address().slice(1)}`; // before any other mint (base58's first digit)
  const matches = (range: Range, nowMs: number) => matchesLedger(deps, range, nowMs, []);

  beforeAll(async () => {
    const engines = await testEngines();
    deps = depsOf(engines.ch, engines.sql, registry0);
    const rows = [];
    for (let d = day - 2; d < day; d++) for (let i = 0; i < 30; i++) rows.push(trade(address(), d * 86400 + 100 + i, 1_000 + i, config));
    await engines.ch.insert("trades", rows);
  });

  test("a coin first traded today, or late on a closed day, with a mint before the tenth's, is listed; one without fees is not", async () => {
    await matches("7d", at(day, 9));
    await matches("7d", at(day, 10));
    const [fresh, feeless, late] = [small(), small(), small()];
    await deps.ch.insert("trades", [trade(fresh, day * 86400 + 7200, 5, config), trade(feeless, day * 86400 + 7200, 0, config)]);
    const top = (await matches("7d", at(day, 11))).map((e) => e.mint);
    expect(top).toContain(fresh);
    expect(top).not.toContain(feeless);
    await deps.ch.insert("trades", [trade(late, (day - 1) * 86400 + 7200, 3, config)]);
    expect((await matches("7d", at(day, 11))).map((e) => e.mint)).toContain(late);
    await matches("all", at(day, 12));
  });
});
