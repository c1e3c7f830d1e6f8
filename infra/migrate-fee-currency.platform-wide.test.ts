/**
 * ClickHouse migration 0014 (the fee currency of trades) on a populated store: the store is
 * put back to its 0013 shape (no `fee_in_base`, the rollups' views of 0011-0013, their tables
 * filled as those files fill them), trades of both currencies are stored the way the old sink
 * stored them, then 0014 runs. Every possible crash is tried: the file's statements up to each
 * point, then the whole file again from its first statement (what the migrator does after a
 * crash). After each, the column and every rollup must be what the raw rows say. Each row's
 * currency below is the truth of its pool's collect fee mode, written by hand; the migration
 * only sees the stored amounts. A platform-wide file: it rewrites the rollups of the store.
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
/** 2002, hours apart and over several days: rows no other file writes, in several hours and spans */
const T0 = Date.UTC(2002, 0, 1) / 1000;
const CONFIG = address();

type Row = {
  mint: string; slot: number; signature: string; ix: number; inner: number; at: number; venue: string; pool: string; config: string; quote_mint: string;
  side: "buy" | "sell"; trader: string; amount_quote: bigint; amount_base: bigint; sqrt_price: bigint; quote_reserve: bigint; migration_threshold: bigint;
  trading_fee: bigint; protocol_fee: bigint; referral_fee: bigint; base_decimals: number; price_sol: number;
};
type Truth = { row: Row; inBase: boolean };

let e: TestEngines;
let slot = 1_000_000;
const truths: Truth[] = [];

function trade(o: { mint: string; pool: string; venue: string; side: "buy" | "sell"; quote: bigint; base: bigint; fee: bigint; at: number; inBase: boolean }): Truth {
  const row: Row = {
    mint: o.mint, slot: ++slot, signature: signature(), ix: 2, inner: 3, at: o.at, venue: o.venue, pool: o.pool, config: o.venue === "dbc" ? CONFIG : "",
    quote_mint: WSOL, side: o.side, trader: address(), amount_quote: o.quote, amount_base: o.base, sqrt_price: 1n << 64n, quote_reserve: 0n,
    migration_threshold: 0n, trading_fee: o.fee, protocol_fee: o.fee / 4n, referral_fee: o.fee / 10n, base_decimals: 6, price_sol: 0.00003,
  };
  return { row, inBase: o.inBase };
}

/**
 * Coins and pools of every kind: a curve collecting fees in the output token (DBC collect_fee_mode 1)
 * whose early buys pay fees (in coin atoms) larger than their lamports in, and whose later, costlier
 * buys pay fewer coin atoms than their lamports in (only the pool rule finds those); a curve collecting
 * in the quote token; DAMM v2 pools of both modes (BothToken charges a buy in the coin); sells; buys
 * without fees.
 */
function rows(): Truth[] {
  const out: Truth[] = [];
  const at = (h: number) => T0 + h * 3600 + 17;
  const outputCurve = { mint: address(), pool: address(), venue: "dbc" };
  out.push(trade({ ...outputCurve, side: "buy", quote: 100_000_000n, base: 3_000_000_000_000n, fee: 30_000_000_000n, at: at(0), inBase: true }));
  out.push(trade({ ...outputCurve, side: "buy", quote: 200_000_000n, base: 5_000_000_000_000n, fee: 50_000_000_000n, at: at(1), inBase: true }));
  out.push(trade({ ...outputCurve, side: "sell", quote: 150_000_000n, base: 4_000_000_000_000n, fee: 1_500_000n, at: at(2), inBase: false }));
  // costly buys of the same curve: 30 SOL in, 1e9 atoms out, fees 1e7 atoms (below their lamports in)
  out.push(trade({ ...outputCurve, side: "buy", quote: 30_000_000_000n, base: 1_000_000_000n, fee: 10_000_000n, at: at(30), inBase: true }));
  out.push(trade({ ...outputCurve, side: "buy", quote: 1_000n, base: 10n, fee: 0n, at: at(31), inBase: false }));
  const quoteCurve = { mint: address(), pool: address(), venue: "dbc" };
  out.push(trade({ ...quoteCurve, side: "buy", quote: 1_000_000_000n, base: 30_000_000_000_000n, fee: 20_000_000n, at: at(0), inBase: false }));
  out.push(trade({ ...quoteCurve, side: "sell", quote: 500_000_000n, base: 10_000_000_000_000n, fee: 10_000_000n, at: at(50), inBase: false }));
  out.push(trade({ ...quoteCurve, side: "buy", quote: 2_000_000_000n, base: 60_000_000_000_000n, fee: 40_000_000n, at: at(80), inBase: false }));
  const bothDamm = { mint: outputCurve.mint, pool: address(), venue: "damm_v2" };
  out.push(trade({ ...bothDamm, side: "buy", quote: 1_000_000_000n, base: 10_000_000_000_000n, fee: 200_000_000_000n, at: at(40), inBase: true }));
  out.push(trade({ ...bothDamm, side: "sell", quote: 900_000_000n, base: 9_000_000_000_000n, fee: 18_000_000n, at: at(41), inBase: false }));
  const onlyBDamm = { mint: quoteCurve.mint, pool: address(), venue: "damm_v2" };
  out.push(trade({ ...onlyBDamm, side: "buy", quote: 1_000_000_000n, base: 10_000_000_000_000n, fee: 20_000_000n, at: at(90), inBase: false }));
  out.push(trade({ ...onlyBDamm, side: "sell", quote: 700_000_000n, base: 8_000_000_000_000n, fee: 14_000_000n, at: at(120), inBase: false }));
  return out;
}

const VIEWS = ["trades_by_slot_mv", "fees_1h_mv", "coin_fees_mv", "coin_fees_span_mv"];
const ROLLUPS = ["fees_1h", "coin_fees", "coin_fees_span", "trades_by_slot"];
const file = (prefix: string) => statements(migrationFiles("clickhouse").find((f) => f.name.startsWith(prefix))!.text);
const names = (s: string, re: RegExp) => re.exec(s)?.[1];

/** The store as 0013 left it: no fee_in_base, the old views, the rollups filled by the old files' copies. */
async function backTo0013(): Promise<void> {
  for (const v of VIEWS) await e.ch.command(`DROP VIEW IF EXISTS ${v}`);
  await e.ch.command("ALTER TABLE trades DROP COLUMN IF EXISTS fee_in_base SETTINGS mutations_sync = 2");
  await e.ch.command("ALTER TABLE trades_by_slot DROP COLUMN IF EXISTS fee_in_base SETTINGS mutations_sync = 2");
  const old = ["0011_", "0012_", "0013_"].flatMap(file);
  for (const s of old) if (VIEWS.includes(names(s, /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+)/) ?? "")) await e.ch.command(s);
  for (const s of old) if (ROLLUPS.includes(names(s, /^(?:TRUNCATE TABLE|INSERT INTO) (\w+)(?:\s|$)/) ?? "")) await e.ch.command(s);
}

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
const quoteFees = (ts: Truth[], f: (r: Row) => bigint) => sum(ts.filter((t) => !t.inBase).map((t) => f(t.row)));
const day = (s: number) => Math.floor(s / 86400);

/** What the raw rows say, against what the store holds (this file's coins and config only). */
async function expectStoreRight(list: Truth[]): Promise<void> {
  const mints = [...new Set(list.map((t) => t.row.mint))];
  const q = <T>(sql: string) => e.ch.query<T>(sql, { m: mints, c: CONFIG });
  const flags = await q<{ signature: string; b: number }>("SELECT signature, fee_in_base AS b FROM trades WHERE mint IN {m:Array(String)}");
  const bySlot = await q<{ signature: string; b: number }>("SELECT signature, fee_in_base AS b FROM trades_by_slot WHERE mint IN {m:Array(String)}");
  const truth = Object.fromEntries(list.map((t) => [t.row.signature, t.inBase ? 1 : 0]));
  expect(Object.fromEntries(flags.map((r) => [r.signature, r.b]))).toEqual(truth);
  expect(bySlot.length).toBe(list.length);
  expect(Object.fromEntries(bySlot.map((r) => [r.signature, r.b]))).toEqual(truth);

  // fees_1h (this file's DBC config): per hour, trades and volume of every trade, fees of quote-currency trades only
  const dbc = list.filter((t) => t.row.config === CONFIG);
  const hours = [...new Set(dbc.map((t) => Math.floor(t.row.at / 3600) * 3600))].sort((a, b) => a - b);
  const wantHours = hours.map((h) => {
    const ts = dbc.filter((t) => Math.floor(t.row.at / 3600) * 3600 === h);
    return {
      hour: h, trades: String(ts.length), volume: String(sum(ts.map((t) => t.row.amount_quote))),
      tf: String(quoteFees(ts, (r) => r.trading_fee)), pf: String(quoteFees(ts, (r) => r.protocol_fee)), rf: String(quoteFees(ts, (r) => r.referral_fee)),
    };
  });
  expect(
    await q(`SELECT toUnixTimestamp(hour) AS hour, toString(sum(trades)) AS trades, toString(sum(volume)) AS volume, toString(sum(trading_fee)) AS tf,
               toString(sum(protocol_fee)) AS pf, toString(sum(referral_fee)) AS rf FROM fees_1h WHERE config = {c:String} GROUP BY hour ORDER BY hour`),
  ).toEqual(wantHours);

  // coin_fees: per coin and config, all time
  const keys = [...new Set(list.map((t) => `${t.row.mint}|${t.row.config}`))].sort();
  const wantCoins = keys.map((k) => {
    const ts = list.filter((t) => `${t.row.mint}|${t.row.config}` === k);
    return { k, tf: String(quoteFees(ts, (r) => r.trading_fee)), pf: String(quoteFees(ts, (r) => r.protocol_fee)), rf: String(quoteFees(ts, (r) => r.referral_fee)) };
  });
  expect(
    await q(`SELECT concat(mint, '|', config) AS k, toString(sum(trading_fee)) AS tf, toString(sum(protocol_fee)) AS pf, toString(sum(referral_fee)) AS rf
             FROM coin_fees WHERE mint IN {m:Array(String)} GROUP BY k ORDER BY k`),
  ).toEqual(wantCoins);

  // coin_fees_span: the 2^level days starting at each aligned start
  const wantSpans: { level: number; start: number; k: string; tf: string }[] = [];
  for (let level = 0; level <= 5; level++) {
    const span = (s: number) => Math.floor(day(s) / 2 ** level) * 2 ** level;
    const groups = new Map<string, Truth[]>();
    for (const t of list) {
      const g = `${span(t.row.at)}#${t.row.mint}|${t.row.config}`;
      groups.set(g, [...(groups.get(g) ?? []), t]);
    }
    for (const [g, ts] of groups) {
      const [start, k] = g.split("#");
      wantSpans.push({ level, start: Number(start), k: k!, tf: String(quoteFees(ts, (r) => r.trading_fee)) });
    }
  }
  wantSpans.sort((a, b) => a.level - b.level || a.start - b.start || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  expect(
    await q(`SELECT level, toUInt16(start) AS start, concat(mint, '|', config) AS k, toString(sum(trading_fee)) AS tf FROM coin_fees_span
             WHERE mint IN {m:Array(String)} GROUP BY level, start, k ORDER BY level, start, k`),
  ).toEqual(wantSpans);
}

beforeAll(async () => {
  e = await testEngines();
});

test("0014 on a store of 0013: the column and the rollups from the stored rows, after a crash at any statement and a re-run", async () => {
  await backTo0013();
  const cols = await e.ch.query<{ table: string }>("SELECT table FROM system.columns WHERE database = currentDatabase() AND name = 'fee_in_base'");
  expect(cols).toEqual([]);
  truths.push(...rows());
  // stored by the old sink: no fee currency; the old views add coin atoms to lamports
  await e.ch.insert("trades", truths.map((t) => t.row));
  const mixed = await e.ch.query<{ tf: string }>("SELECT toString(sum(trading_fee)) AS tf FROM coin_fees WHERE mint IN {m:Array(String)}", { m: truths.map((t) => t.row.mint) });
  expect(BigInt(mixed[0]!.tf)).toBe(sum(truths.map((t) => t.row.trading_fee)));
  expect(quoteFees(truths, (r) => r.trading_fee)).toBeLessThan(sum(truths.map((t) => t.row.trading_fee)));

  const all = file("0014_");
  expect(all.length).toBeGreaterThan(10);
  await crashAtEveryStatement(e.ch, all, backTo0013, () => expectStoreRight(truths));
});

test("after 0014, the views add each new trade once, fees of quote-currency trades only", async () => {
  const more = [...rows()].map((t) => ({ ...t }));
  await e.ch.insert("trades", more.map((t) => ({ ...t.row, fee_in_base: t.inBase ? 1 : 0 })));
  await expectStoreRight([...truths, ...more]);
});
