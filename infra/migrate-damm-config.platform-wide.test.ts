/**
 * ClickHouse migration 0017 (DAMM v2 trades carry their coin's config; the fee split reads the
 * curve's fees) on a populated store: the store is put back to its 0014 shape (no
 * `curve_trading_fee`, 0014's views, DAMM v2 trades stored with config '' as the old sink stored
 * them), then 0017 runs after a crash at every point (its statements up to it, then the whole file
 * again from its first statement, as the migrator does). After each, every DAMM v2 trade of a coin
 * the directory knows has that coin's newest config, and the rollups are what the raw rows say.
 * A platform-wide file: it rewrites the rollups of the store.
 */
import { beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { encodeBase58 } from "../ingest/decoders/base58";
import { testEngines, type TestEngines } from "./testing/engines";
import { migrationFiles, statements } from "./migrate";
import { crashAtEveryStatement } from "./testing/migration-crash";

const address = () => encodeBase58(randomBytes(32));
const signature = () => encodeBase58(randomBytes(64));
const WSOL = "So11111111111111111111111111111111111111112";
/** 2003, hours apart over several days: rows no other file writes */
const T0 = Date.UTC(2003, 0, 1) / 1000;
const OLD_CONFIG = address();
const CONFIG = address();

type Row = {
  mint: string; slot: number; signature: string; ix: number; inner: number; at: number; venue: string; pool: string; config: string; quote_mint: string;
  side: "buy" | "sell"; trader: string; amount_quote: bigint; amount_base: bigint; sqrt_price: bigint; quote_reserve: bigint; migration_threshold: bigint;
  trading_fee: bigint; protocol_fee: bigint; referral_fee: bigint; base_decimals: number; price_sol: number; fee_in_base: number;
};

let e: TestEngines;
let slot = 2_000_000;
const known = address(); // in the directory (two rows: the newer names CONFIG)
const unknown = address(); // not in the directory: its DAMM v2 trades keep ''

function trade(mint: string, venue: string, h: number, fee: bigint, inBase = 0): Row {
  return {
    mint, slot: ++slot, signature: signature(), ix: 1, inner: -1, at: T0 + h * 3600 + 5, venue, pool: address(), config: venue === "dbc" ? CONFIG : "",
    quote_mint: WSOL, side: "buy", trader: address(), amount_quote: 1_000_000_000n + BigInt(h), amount_base: 10n ** 12n, sqrt_price: 1n << 64n,
    quote_reserve: 0n, migration_threshold: 0n, trading_fee: fee, protocol_fee: fee / 4n, referral_fee: 0n, base_decimals: 6, price_sol: 0.00003, fee_in_base: inBase,
  };
}

const rows: Row[] = [
  trade(known, "dbc", 0, 10_000_000n),
  trade(known, "dbc", 1, 7n * 10n ** 11n, 1), // fees in the coin: in no lamport sum
  trade(known, "damm_v2", 30, 3_000_000n),
  trade(known, "damm_v2", 70, 5_000_000n),
  trade(unknown, "damm_v2", 30, 1_000_000n),
];
const mints = [known, unknown];
const VIEWS = ["fees_1h_mv", "coin_fees_mv", "coin_fees_span_mv"];
const file = (prefix: string) => statements(migrationFiles("clickhouse").find((f) => f.name.startsWith(prefix))!.text);
const viewOf = (s: string) => /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+)/.exec(s)?.[1] ?? "";
const rollupOf = (s: string) => /^(?:TRUNCATE TABLE|INSERT INTO) (\w+)(?:\s|$)/.exec(s)?.[1] ?? "";

/** The store as 0014 left it, with this file's DAMM v2 trades stored with config ''. */
async function backTo0014(): Promise<void> {
  for (const v of VIEWS) await e.ch.command(`DROP VIEW IF EXISTS ${v}`);
  await e.ch.command("ALTER TABLE fees_1h DROP COLUMN IF EXISTS curve_trading_fee");
  await e.ch.command("ALTER TABLE trades UPDATE config = '' WHERE venue = 'damm_v2' AND mint IN {m:Array(String)} SETTINGS mutations_sync = 2", { m: mints });
  const old = file("0014_");
  for (const s of old) if (VIEWS.includes(viewOf(s)) || ["fees_1h", "coin_fees", "coin_fees_span"].includes(rollupOf(s))) await e.ch.command(s);
}

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
const lamportFee = (r: Row) => (r.fee_in_base ? 0n : r.trading_fee);

async function expectStoreRight(): Promise<void> {
  const q = <T>(sql: string) => e.ch.query<T>(sql, { m: mints });
  const configs = await q<{ signature: string; config: string }>("SELECT signature, config FROM trades WHERE mint IN {m:Array(String)} ORDER BY slot");
  expect(configs).toEqual(rows.map((r) => ({ signature: r.signature, config: r.mint === known ? CONFIG : "" })));
  // fees_1h: every trade of the coin it knows in CONFIG's rows (both venues), the curve's fees apart
  const hours = [...new Set(rows.filter((r) => r.mint === known).map((r) => Math.floor(r.at / 3600) * 3600))].sort((a, b) => a - b);
  const want = hours.map((h) => {
    const rs = rows.filter((r) => r.mint === known && Math.floor(r.at / 3600) * 3600 === h);
    return {
      hour: h, trades: String(rs.length), volume: String(sum(rs.map((r) => r.amount_quote))), tf: String(sum(rs.map(lamportFee))),
      ctf: String(sum(rs.filter((r) => r.venue === "dbc").map(lamportFee))),
    };
  });
  expect(
    await e.ch.query(
      `SELECT toUnixTimestamp(hour) AS hour, toString(sum(trades)) AS trades, toString(sum(volume)) AS volume, toString(sum(trading_fee)) AS tf,
         toString(sum(curve_trading_fee)) AS ctf FROM fees_1h WHERE config = {c:String} AND hour >= toDateTime({t:UInt32}, 'UTC') AND hour < toDateTime({t:UInt32} + 86400 * 30, 'UTC')
       GROUP BY hour ORDER BY hour`,
      { c: CONFIG, t: T0 },
    ),
  ).toEqual(want);
  // coin_fees and coin_fees_span: the curve's trades only
  const curve = rows.filter((r) => r.venue === "dbc");
  expect(await q("SELECT mint, config, toString(sum(trading_fee)) AS tf FROM coin_fees WHERE mint IN {m:Array(String)} GROUP BY mint, config")).toEqual([
    { mint: known, config: CONFIG, tf: String(sum(curve.map(lamportFee))) },
  ]);
  expect(await q("SELECT level, toString(sum(trading_fee)) AS tf FROM coin_fees_span WHERE mint IN {m:Array(String)} GROUP BY level ORDER BY level")).toEqual(
    [0, 1, 2, 3, 4, 5].map((level) => ({ level, tf: String(sum(curve.map(lamportFee))) })),
  );
}

beforeAll(async () => {
  e = await testEngines();
});

test("0017 on a store of 0014: DAMM v2 trades get their coin's config, the rollups split the curve's fees, after a crash at any statement and a re-run", async () => {
  // the directory: an older row naming another config, the newest naming CONFIG
  for (const [version, config] of [[1, OLD_CONFIG], [2, CONFIG]] as const)
    await e.ch.command(
      `INSERT INTO agent_directory (mint, version, config) VALUES ({m:String}, {v:UInt64}, {c:String})`,
      { m: known, v: version, c: config },
    );
  await backTo0014();
  await e.ch.insert("trades", rows);
  const all = file("0017_");
  expect(all.length).toBeGreaterThan(10);
  await crashAtEveryStatement(e.ch, all, backTo0014, expectStoreRight);
});
