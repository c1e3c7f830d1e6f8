/**
 * ClickHouse migration 0018 (each day's curve trading fees per config in `coin_fees_span`, level
 * 255) on a populated store: the store is put back to its 0017 shape (0017's view, no day totals),
 * then 0018 runs after a crash at every point (its statements up to it, then the whole file again
 * from its first statement, as the migrator does). After each, the day totals are what the raw
 * trades say (the curve's trades, fees paid in lamports), each day once, the coins' spans are
 * untouched, and a trade written after the upgrade lands in its day's total and its coin's spans.
 * A platform-wide file: it rewrites the view and the totals of the store.
 */
import { beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { encodeBase58 } from "../ingest/decoders/base58";
import { testEngines, type TestEngines } from "./testing/engines";
import { migrationFiles, statements } from "./migrate";
import { crashAtEveryStatement } from "./testing/migration-crash";

const address = () => encodeBase58(randomBytes(32));
/** 2004, days apart: rows no other file writes */
const T0 = Date.UTC(2004, 0, 1) / 1000;
const CONFIG = address();
const OTHER = address();
let e: TestEngines;
let slot = 3_000_000;

const trade = (mint: string, day: number, fee: bigint, o: { venue?: string; inBase?: number; config?: string } = {}) => ({
  mint, slot: ++slot, signature: encodeBase58(randomBytes(64)), ix: 1, inner: -1, at: T0 + day * 86400 + 3600 + slot % 1000, venue: o.venue ?? "dbc", pool: address(),
  config: o.config ?? CONFIG, quote_mint: "So11111111111111111111111111111111111111112", side: "sell", trader: address(), amount_quote: 1_000_000n, amount_base: 1n,
  sqrt_price: 1n, quote_reserve: 0n, migration_threshold: 0n, trading_fee: fee, protocol_fee: 1n, referral_fee: 0n, base_decimals: 6, price_sol: 0.00003, fee_in_base: o.inBase ?? 0,
});
const [a, b] = [address(), address()];
const rows = [
  trade(a, 0, 1_000_003n), trade(a, 0, 2_000_005n), trade(b, 0, 7_000_001n, { config: OTHER }), trade(b, 1, 4_000_007n),
  trade(a, 1, 9n * 10n ** 12n, { inBase: 1 }), // fees in the coin: in no lamport sum
  trade(b, 2, 5_000_000n, { venue: "damm_v2" }), // a DAMM v2 pool's fees go to its positions
  trade(a, 40, 3_000_011n),
];
const file = (prefix: string) => statements(migrationFiles("clickhouse").find((f) => f.name.startsWith(prefix))!.text);
const DAYS = { from: T0, to: T0 + 60 * 86400 };

/** The store as 0017 left it: 0017's view of the spans, no day totals. */
async function backTo0017(): Promise<void> {
  await e.ch.command("DROP VIEW IF EXISTS coin_fees_span_mv");
  await e.ch.command(file("0017_").find((s) => s.startsWith("CREATE MATERIALIZED VIEW IF NOT EXISTS coin_fees_span_mv"))!);
  await e.ch.command("ALTER TABLE coin_fees_span DELETE WHERE level = 255 SETTINGS mutations_sync = 2");
}

/** Each day's totals per config, from the raw rows. */
function totals(of: typeof rows) {
  const m = new Map<string, bigint>();
  for (const r of of) {
    if (r.venue !== "dbc") continue;
    const k = `${new Date((r.at - (r.at % 86400)) * 1000).toISOString().slice(0, 10)}|${r.config}`;
    m.set(k, (m.get(k) ?? 0n) + (r.fee_in_base ? 0n : r.trading_fee));
  }
  return [...m].sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, fee]) => ({ day: k.split("|")[0], config: k.split("|")[1], fee: String(fee) }));
}
const stored = () =>
  e.ch.query(
    `SELECT toString(start) AS day, config, toString(sum(trading_fee)) AS fee FROM coin_fees_span
     WHERE level = 255 AND mint = '' AND config IN {c:Array(String)} AND start >= toDate(toDateTime({from:UInt32}, 'UTC')) AND start < toDate(toDateTime({to:UInt32}, 'UTC'))
     GROUP BY day, config ORDER BY day, config`,
    { c: [CONFIG, OTHER], ...DAYS },
  );
const spans = () =>
  e.ch.query("SELECT level, toString(sum(trading_fee)) AS tf FROM coin_fees_span WHERE mint IN {m:Array(String)} GROUP BY level ORDER BY level", { m: [a, b] });

beforeAll(async () => {
  e = await testEngines();
});

test("0018 on a store of 0017: each day's fees per config, after a crash at any statement and a re-run; the view adds later trades", async () => {
  await backTo0017();
  await e.ch.insert("trades", rows);
  const lamports = (xs: typeof rows) => String(xs.filter((r) => r.venue === "dbc" && !r.fee_in_base).reduce((s, r) => s + r.trading_fee, 0n));
  const spansWant = [0, 1, 2, 3, 4, 5].map((level) => ({ level, tf: lamports(rows) }));
  expect(await spans()).toEqual(spansWant);
  expect(await stored()).toEqual([]);
  const all = file("0018_");
  expect(all.length).toBe(4);
  await crashAtEveryStatement(e.ch, all, backTo0017, async () => {
    expect(await stored()).toEqual(totals(rows));
    expect(await spans()).toEqual(spansWant);
  });
  // after the upgrade the view writes the totals with the spans
  const late = [trade(a, 1, 600_001n), trade(b, 41, 700_003n, { config: OTHER })];
  await e.ch.insert("trades", late);
  expect(await stored()).toEqual(totals([...rows, ...late]));
  expect(await spans()).toEqual([0, 1, 2, 3, 4, 5].map((level) => ({ level, tf: lamports([...rows, ...late]) })));
});
