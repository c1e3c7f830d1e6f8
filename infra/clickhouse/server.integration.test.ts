/**
 * The ClickHouse server path (CLICKHOUSE_URL) end to end: the real createClickhouseServer
 * and @clickhouse/client over HTTP, against the ClickHouse HTTP test double, which runs
 * the statements on chDB in its own process. What the double does not cover (auth,
 * multi-statement rejection, a real server's concurrency) is listed in the double's header.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startClickhouseHttpDouble, type ClickhouseHttpDouble } from "../testing/clickhouse-http-double-process";
import { createClickhouseServer } from "./server";
import type { ClickHouse } from "./client";
import { migrateClickhouse, migrationFiles, statements } from "../migrate";
import { createLogger } from "../log";

const log = createLogger("error");
let double: ClickhouseHttpDouble;
let ch: ClickHouse;
let firstMigration: string[];

const U64_MAX = 18446744073709551615n;
const U128_BIG = 2n ** 127n;

let seq = 0;
function trade(mint: string, o: Record<string, unknown> = {}) {
  const i = ++seq;
  return {
    mint, slot: 1000n + BigInt(i), signature: `sig-${mint}-${i}`, ix: 0, inner: -1, at: "2024-01-01 00:00:30",
    venue: "curve", pool: "pool", config: "cfg", quote_mint: "So11111111111111111111111111111111111111112", side: "buy", trader: "trader",
    amount_quote: 1_000n, amount_base: 5_000n, sqrt_price: 1n << 64n, quote_reserve: 1n, migration_threshold: 2n,
    trading_fee: 0n, protocol_fee: 0n, referral_fee: 0n, base_decimals: 6, price_sol: 0.5, fee_in_base: 0, ...o,
  };
}
const mintOf = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  double = await startClickhouseHttpDouble();
  // log_level=OFF (a client option CLICKHOUSE_URL may carry): the failures these tests provoke on purpose would log as errors
  ch = await createClickhouseServer(`${double.url}/?log_level=OFF`);
  // every other test needs the schema, so migrate here; the migration test checks what this did
  firstMigration = await migrateClickhouse(ch, log);
});

afterAll(async () => {
  await ch?.close();
  await double?.stop();
});

describe("ClickHouse over HTTP (createClickhouseServer against the chDB-backed HTTP double)", () => {
  test("ping", async () => {
    expect(await ch.ping()).toBe(true);
  });

  test("migrations apply every file once, and a second run applies nothing", async () => {
    const all = migrationFiles("clickhouse").map((f) => f.name);
    expect(firstMigration).toEqual(all);
    expect(await migrateClickhouse(ch, log)).toEqual([]);
    const tables = (await ch.query<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase()")).map((r) => r.name);
    for (const t of ["trades", "pool_events", "market_state", "market_state_mv", "candles_1m", "agent_directory", "activity"]) expect(tables).toContain(t);
    const recorded = await ch.query<{ name: string }>("SELECT DISTINCT name FROM schema_migrations ORDER BY name");
    expect(recorded.map((r) => r.name)).toEqual(all);
  });

  test("the table rebuilds (0004-0006) keep every row, keep the views fed, and survive a crash after the swap", async () => {
    // an install at 0003 with data, in a database of its own
    await ch.command("CREATE DATABASE IF NOT EXISTS upgrade_check");
    const old = await createClickhouseServer(`${double.url}/upgrade_check?log_level=OFF`);
    const files = migrationFiles("clickhouse");
    const run = async (name: string, skipLast = 0) => {
      const all = statements(files.find((f) => f.name.startsWith(name))!.text);
      for (const stmt of all.slice(0, all.length - skipLast)) await old.command(stmt);
    };
    for (const n of ["0001", "0002", "0003"]) await run(n);
    const mint = mintOf("upgrade");
    await old.insert("trades", [trade(mint), trade(mint)]);
    await old.insert("raw_transactions", [{ signature: "undecodable-1", slot: 7n, source: "helius", status: "undecodable", detail: "bad", payload: "{}" }]);
    const state = async () => ({
      trades: (await old.query<{ n: string }>("SELECT toString(count()) AS n FROM trades WHERE mint = {mint:String}", { mint }))[0]!.n,
      viewed: (await old.query<{ n: string }>("SELECT toString(sum(trades)) AS n FROM market_state WHERE mint = {mint:String}", { mint }))[0]!.n,
      granularity: (await old.query<{ g: string }>("SELECT extract(engine_full, 'index_granularity = (\\d+)') AS g FROM system.tables WHERE database = 'upgrade_check' AND name = 'trades'"))[0]!.g,
      leftovers: (await old.query<{ name: string }>("SELECT name FROM system.tables WHERE database = 'upgrade_check' AND name IN ('raw_transactions', 'trades_rebuilt')")).map((r) => r.name),
    });
    await run("0004");
    await run("0005");
    expect(await old.query("SELECT signature, toString(slot) AS slot, status, payload FROM transactions")).toEqual([{ signature: "undecodable-1", slot: "7", status: "undecodable", payload: "{}" }]);

    await run("0006", 1); // dies after the swap, before dropping the old table
    expect(await state()).toEqual({ trades: "2", viewed: "2", granularity: "1024", leftovers: ["trades_rebuilt"] });
    await run("0006"); // the restart runs the file again: the data stays whole, the old granularity comes back
    expect(await state()).toEqual({ trades: "2", viewed: "2", granularity: "8192", leftovers: [] });
    await run("0006"); // a clean run
    expect(await state()).toEqual({ trades: "2", viewed: "2", granularity: "1024", leftovers: [] });
    await old.insert("trades", [trade(mint)]); // the views follow the name `trades`
    expect(await state()).toEqual({ trades: "3", viewed: "3", granularity: "1024", leftovers: [] });
    await old.close();
    await ch.command("DROP DATABASE upgrade_check");
  });

  test("UInt64 and UInt128 bigints go in and come back exactly, as strings", async () => {
    const mint = mintOf("big");
    await ch.insert("trades", [
      trade(mint, { amount_quote: U64_MAX, sqrt_price: U128_BIG, slot: U64_MAX }),
      trade(mint, { amount_quote: 0n, sqrt_price: 2n ** 128n - 1n, slot: 1n }),
    ]);
    const rows = await ch.query<Record<string, unknown>>(
      "SELECT slot, amount_quote, sqrt_price, at FROM trades WHERE mint = {mint:String} ORDER BY slot",
      { mint },
    );
    expect(rows).toEqual([
      { slot: "1", amount_quote: "0", sqrt_price: (2n ** 128n - 1n).toString(), at: "2024-01-01T00:00:30Z" },
      { slot: U64_MAX.toString(), amount_quote: U64_MAX.toString(), sqrt_price: U128_BIG.toString(), at: "2024-01-01T00:00:30Z" },
    ]);
  });

  test("typed parameters: String, Array(String), UInt32, DateTime, Int64", async () => {
    const [a, b, c] = [mintOf("pa"), mintOf("pb"), mintOf("pc")];
    await ch.insert("trades", [
      trade(a, { at: "2024-01-01 00:00:00" }),
      trade(a, { at: "2024-01-02 00:00:00" }),
      trade(b, { at: "2024-01-02 00:00:00" }),
      trade(c, { at: "2024-01-02 00:00:00" }),
    ]);
    const since = Date.UTC(2024, 0, 1, 12) / 1000;
    expect(
      await ch.query("SELECT mint, count() AS n FROM trades WHERE mint IN {mints:Array(String)} AND at >= {since:UInt32} GROUP BY mint ORDER BY mint", {
        mints: [a, b],
        since,
      }),
    ).toEqual([{ mint: a, n: "1" }, { mint: b, n: "1" }].sort((x, y) => (x.mint < y.mint ? -1 : 1)));
    expect(await ch.query("SELECT count() AS n FROM trades WHERE mint = {mint:String}", { mint: a })).toEqual([{ n: "2" }]);
    // awkward text survives the client's escaping and the server's parsing unchanged
    const s = "it's a \\ back\tslash\nand 'quotes'";
    expect(
      await ch.query("SELECT {s:String} AS s, {arr:Array(String)} AS arr, {d:DateTime} AS d, {i:Int64} AS i, {n:UInt32} AS n", {
        s,
        arr: [s, "", "[x]"],
        d: new Date(since * 1000),
        i: -(2n ** 63n),
        n: 4_000_000_000,
      }),
    ).toEqual([{ s, arr: [s, "", "[x]"], d: "2024-01-01T12:00:00Z", i: (-(2n ** 63n)).toString(), n: 4_000_000_000 }]);
  });

  test("the materialized views fire on insert", async () => {
    const mint = mintOf("mv");
    await ch.insert("trades", [
      trade(mint, { at: "2024-01-03 10:00:05", price_sol: 1, amount_quote: U64_MAX, side: "buy" }),
      trade(mint, { at: "2024-01-03 10:00:40", price_sol: 3, amount_quote: 1n, side: "sell" }),
      trade(mint, { at: "2024-01-03 10:01:10", price_sol: 2, amount_quote: 1n, side: "buy" }),
    ]);
    expect(
      await ch.query(
        "SELECT sum(trades) AS trades, sum(volume_sol) AS volume, argMaxMerge(price_sol) AS price, max(last_at) AS last_at FROM market_state WHERE mint = {mint:String}",
        { mint },
      ),
    ).toEqual([{ trades: "3", volume: (U64_MAX + 2n).toString(), price: 2, last_at: "2024-01-03T10:01:10Z" }]);
    expect(
      await ch.query(
        "SELECT minute, argMinMerge(open) AS open, argMaxMerge(close) AS close, max(high) AS high, sum(trades) AS trades, sum(buys) AS buys FROM candles_1m WHERE mint = {mint:String} GROUP BY minute ORDER BY minute",
        { mint },
      ),
    ).toEqual([
      { minute: "2024-01-03T10:00:00Z", open: 1, close: 3, high: 3, trades: "2", buys: "1" },
      { minute: "2024-01-03T10:01:00Z", open: 2, close: 2, high: 2, trades: "1", buys: "1" },
    ]);
  });

  test("an SQL error rejects with ClickHouse's message", async () => {
    const err = await ch.query("SELECT no_such_column FROM trades").then(() => null, (e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain("no_such_column");
    expect(err).toMatchObject({ code: "47", type: "UNKNOWN_IDENTIFIER" });
    await expect(ch.command("CREATE TABLE broken (")).rejects.toMatchObject({ type: "SYNTAX_ERROR" });
    await expect(ch.insert("trades", [{ mint: "x", slot: "not a number" }])).rejects.toThrow(/slot/);
    await expect(ch.query("SELECT {unbound:String} AS x")).rejects.toMatchObject({ type: "UNKNOWN_QUERY_PARAMETER" });
  });

  test("stream: CSV and JSONEachRow rows as the server writes them, Parquet one file, settings applied, an early stop ends the request", async () => {
    const mint = mintOf("stream");
    await ch.insert("trades", [trade(mint, { slot: 7n }), trade(mint, { slot: 8n, amount_quote: 2_000n }), trade(mint, { slot: 9n, side: "sell" })]);
    const sql = "SELECT slot, side, amount_quote FROM trades WHERE mint = {mint:String} ORDER BY slot";
    const all = async (it: AsyncIterable<Uint8Array>) => Buffer.concat(await Array.fromAsync(it));
    expect((await all(ch.stream(sql, { mint }, "CSV"))).toString()).toBe('7,"buy",1000\n8,"buy",2000\n9,"sell",1000\n');
    const json = (await all(ch.stream(sql, { mint }, "JSONEachRow", { settings: { output_format_json_quote_64bit_integers: 0 } }))).toString();
    expect(json).toBe('{"slot":7,"side":"buy","amount_quote":1000}\n{"slot":8,"side":"buy","amount_quote":2000}\n{"slot":9,"side":"sell","amount_quote":1000}\n');
    const parquet = await all(ch.stream(sql, { mint }, "Parquet"));
    expect(parquet.subarray(0, 4).toString()).toBe("PAR1");
    expect(parquet.subarray(-4).toString()).toBe("PAR1");
    const path = `${process.env.TMPDIR ?? "/tmp"}/server-stream-${mint}.parquet`;
    await Bun.write(path, parquet);
    try {
      const back = await ch.query<{ slot: string; side: string }>("SELECT slot, side FROM file({path:String}, Parquet) ORDER BY slot", { path });
      expect(back).toEqual([{ slot: "7", side: "buy" }, { slot: "8", side: "buy" }, { slot: "9", side: "sell" }]);
    } finally {
      await Bun.file(path).delete();
    }
    for await (const first of ch.stream("SELECT number FROM numbers(1000000)", {}, "CSV")) {
      expect(first.length).toBeGreaterThan(0);
      break;
    }
    // the client is still usable after the abandoned stream
    expect(await ch.ping()).toBe(true);
  });

  test("ping is false when nothing listens", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = closed.port;
    await closed.stop(true);
    const down = await createClickhouseServer(`http://127.0.0.1:${port}/?log_level=OFF`);
    try {
      expect(await down.ping()).toBe(false);
    } finally {
      await down.close();
    }
  });

  describe("retries", () => {
    test("a dropped connection (ECONNRESET) is retried for queries and commands", async () => {
      try {
        await double.dropNext(2);
        expect(await ch.query("SELECT 1 AS x")).toEqual([{ x: 1 }]);
        await double.dropNext(1);
        await ch.command("CREATE TABLE IF NOT EXISTS retry_probe (x UInt8) ENGINE = Memory");
        expect(await ch.query("EXISTS TABLE retry_probe")).toEqual([{ result: 1 }]);
      } finally {
        await double.dropNext(0); // leave no scripted drop behind for the next test
      }
    });

    test("a ClickHouse error that is not transient is not retried", async () => {
      const body = "Code: 60. DB::Exception: Unknown table expression identifier 'nope'. (UNKNOWN_TABLE) (version 26.7.2.1)\n";
      await double.failNext(2, 404, body);
      // each call consumes exactly one scripted failure: the first was not retried
      await expect(ch.query("SELECT 1 AS x")).rejects.toMatchObject({ type: "UNKNOWN_TABLE" });
      await expect(ch.query("SELECT 1 AS x")).rejects.toMatchObject({ type: "UNKNOWN_TABLE" });
      expect(await ch.query("SELECT 1 AS x")).toEqual([{ x: 1 }]);
    });

    // The client turns the server's text into a ClickHouseError whose message is only "Too many
    // simultaneous queries. Maximum: 100. " and keeps the name in err.type: server.ts matches both.
    test("TOO_MANY_SIMULTANEOUS_QUERIES is retried", async () => {
      const body = "Code: 202. DB::Exception: Too many simultaneous queries. Maximum: 100. (TOO_MANY_SIMULTANEOUS_QUERIES) (version 26.7.2.1)\n";
      const mint = mintOf("busy");
      try {
        await double.failNext(2, 500, body);
        expect(await ch.query("SELECT 1 AS x")).toEqual([{ x: 1 }]);
        // refused before it ran, so even an INSERT is safe to send again
        await double.failNext(1, 500, body);
        await ch.insert("trades", [trade(mint)]);
        expect(await ch.query("SELECT count() AS n FROM trades WHERE mint = {mint:String}", { mint })).toEqual([{ n: "1" }]);
      } finally {
        await double.failNext(0, 500, ""); // leave no scripted failure behind for the next test
      }
    });

    // When the connection drops after the server has committed an INSERT, a resent INSERT would go
    // in twice: the fact table's ReplacingMergeTree collapses it on merge, but the materialized
    // views would have added it twice for good. server.ts resends an INSERT only on errors that
    // prove it never ran.
    test("an INSERT committed before the connection dropped is not counted twice by the views", async () => {
      const mint = mintOf("dup");
      await double.dropNext(1, "after");
      // failing loudly is fine (the pipeline's own retry checks what is stored); double-counting is not
      await ch.insert("trades", [trade(mint)]).catch(() => {});
      const [distinct] = await ch.query<{ n: string }>("SELECT count() AS n FROM trades FINAL WHERE mint = {mint:String}", { mint });
      const [viewed] = await ch.query<{ n: string }>("SELECT sum(trades) AS n FROM market_state WHERE mint = {mint:String}", { mint });
      expect(viewed!.n).toBe(distinct!.n);
    });
  });
});
