/**
 * The trade export on the real app, embedded Postgres and chDB: simulated chain traffic
 * posted through the webhook (Data API equality, every format row for row, hidden coins,
 * resume), and a bulk of trades written straight into `trades` at slots above anything
 * stored (the range bound under concurrent writes, client disconnect, the concurrency
 * limit over a real socket).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { PublicKey } from "@solana/web3.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testPlatform } from "../../compose/testing/platform";
import { createSimulator, fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { until } from "../../infra/testing/wait";
import { createLogger } from "../../infra/log";
import type { ClickHouse } from "../../infra/clickhouse";
import { errorHandler } from "../errors";
import { clientAddressOf } from "../public/client-address";
import { exportRoutes } from ".";
import { EXPORT_COLUMNS } from "./sql";
import { CSV_HEADER } from "./service";
import { readFileSync, writeFileSync, existsSync } from "node:fs";

const SEED = 23;
// the stock config quotes in a tokenized stock of 8 decimals (the fixture PoolConfig quotes in wrapped SOL)
const STOCK_MINT = "XsbEhLAtcf6HdfpFZ5xEMdqW8nfAvcsP5bdudRLJzJp";
const WSOL = "So11111111111111111111111111111111111111112";
const configs = fixtureSimConfigs(SEED).map((c) =>
  c.role === "stock" ? { ...c, quoteDecimals: 8, poolConfig: { ...(c.poolConfig as object), quote_mint: new PublicKey(STOCK_MINT) } } : c,
);
const registry = simulatedConfigRegistry(configs);
let p: Awaited<ReturnType<typeof testPlatform>>;
let mints: string[] = [];
let simFrom = 0n;
const tmp = mkdtempSync(join(tmpdir(), "export-test-"));

type Row = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>;

const parseNdjson = (text: string): Row[] => text.trimEnd().split("\n").filter(Boolean).map((l) => JSON.parse(l));

/** RFC 4180 fields as ClickHouse writes them: strings quoted, numbers bare, null as an empty field. */
function parseCsv(text: string): { header: string[]; rows: (string | null)[][] } {
  const lines = text.trimEnd().split("\n");
  const fields = (line: string) => {
    const out: (string | null)[] = [];
    let i = 0;
    while (i <= line.length) {
      if (line[i] === '"') {
        let s = "";
        i++;
        for (;;) {
          if (line[i] === '"' && line[i + 1] === '"') (s += '"'), (i += 2);
          else if (line[i] === '"') break;
          else s += line[i++];
        }
        out.push(s);
        i += 2;
      } else {
        const end = line.indexOf(",", i) === -1 ? line.length : line.indexOf(",", i);
        const raw = line.slice(i, end);
        out.push(raw === "" ? null : raw);
        i = end + 1;
      }
    }
    return out;
  };
  return { header: fields(lines[0]!) as string[], rows: lines.slice(1).map(fields) };
}

/** CSV rows typed as NDJSON gives them (numbers for slot, ix, inner, price). */
const csvAsRows = (text: string): Row[] => {
  const { header, rows } = parseCsv(text);
  expect(header).toEqual([...EXPORT_COLUMNS]);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, ["slot", "ix", "inner", "price_sol"].includes(h) ? Number(r[i]) : r[i]])) as Row);
};

const key = (r: Row) => [BigInt(r.slot as number), r.signature as string, r.ix as number, r.inner as number] as const;
function expectChainOrder(rows: Row[]) {
  const outOfOrder: number[] = [];
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [key(rows[i - 1]!), key(rows[i]!)];
    const before = a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && (a[2] < b[2] || (a[2] === b[2] && a[3] < b[3])))));
    if (!before) outOfOrder.push(i);
  }
  expect(outOfOrder).toEqual([]);
}

async function get(path: string) {
  const res = await p.app.handle(new Request(`http://local${path}`));
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** Every Data API trade of a coin, oldest first (its pages are newest first). */
async function dataApiTrades(mint: string) {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = (await p.call(`/v1/public/agents/${mint}/trades?limit=100${cursor ? `&cursor=${cursor}` : ""}`)).body;
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items.reverse();
}

/** A Parquet file read back by the engine's own Parquet reader, in file order, typed as NDJSON gives it. */
async function readParquet(bytes: Uint8Array, name: string): Promise<Row[]> {
  const path = join(tmp, name);
  await Bun.write(path, bytes);
  const rows = await p.engines.ch.query<Row>(
    `SELECT * FROM file({path:String}, Parquet) SETTINGS max_threads = 1, input_format_parquet_preserve_order = 1, output_format_json_quote_64bit_integers = 0`,
    { path },
  );
  return rows;
}

beforeAll(async () => {
  p = await testPlatform(registry, { env: { EXPORT_CONCURRENCY_PER_CLIENT: "2" } });
  const now = Math.floor(Date.now() / 1000);
  const sim = createSimulator({ seed: SEED, configs, pools: 5, startTime: now - 86400, secondsPerTx: 86400 / 1500 });
  for (let i = 0; i < 1500; i += 250) expect((await p.postWebhook(sim.next(250))).status).toBe(200);
  mints = sim.state().pools.map((x) => x.mint);
  const [first] = await p.engines.ch.query<{ s: string }>("SELECT toString(min(slot)) AS s FROM trades WHERE mint IN {m:Array(String)}", { m: mints });
  simFrom = BigInt(first!.s);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("trade export: formats and the Data API's figures", () => {
  test("NDJSON of a coin: every trade of the Data API, oldest first, with the same figures, and the engine's fees", async () => {
    let checkedStock = 0;
    const feeMints = { coin: 0, quote: 0 };
    for (const mint of mints) {
      const { res, bytes } = await get(`/v1/public/exports/trades?mint=${mint}&format=ndjson`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/x-ndjson");
      const until = res.headers.get("x-export-until-slot")!;
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="trades_${mint}_0-${until}.ndjson"`);
      const rows = parseNdjson(text(bytes));
      const api = await dataApiTrades(mint);
      expect(rows.length).toBe(api.length);
      expect(rows.length).toBeGreaterThan(0);
      expectChainOrder(rows);
      const fees = await p.engines.ch.query<{ t: string; p: string; r: string; pool: string; venue: string }>(
        `SELECT toString(trading_fee) AS t, toString(protocol_fee) AS p, toString(referral_fee) AS r, pool, venue FROM trades
         WHERE mint = {mint:String} ORDER BY slot, signature, ix, inner`,
        { mint },
      );
      rows.forEach((r, i) => {
        const a = api[i];
        expect(Object.keys(r)).toEqual([...EXPORT_COLUMNS]);
        expect([r.signature, r.slot, r.time, r.mint, r.side, r.trader]).toEqual([a.signature, a.slot, a.at, a.mint, a.side, a.trader]);
        expect([r.amount_sol, r.amount_token, r.price_sol]).toEqual([a.amountSol, a.amountToken, a.priceSol]);
        expect(r.quote_mint === null ? null : { mint: r.quote_mint, symbol: r.quote_symbol, amount: r.quote_amount }).toEqual(
          a.quote && { mint: a.quote.mint, symbol: a.quote.symbol, amount: a.quote.amount },
        );
        if (a.quote) {
          checkedStock++;
          expect([a.quote.mint, a.quote.symbol, r.amount_sol]).toEqual([STOCK_MINT, "SIMXx", a.amountSol]);
        }
        expect([r.trading_fee, r.protocol_fee, r.referral_fee, r.pool, r.venue]).toEqual([fees[i]!.t, fees[i]!.p, fees[i]!.r, fees[i]!.pool, fees[i]!.venue]);
        expect(["dbc", "damm_v2"]).toContain(r.venue as string);
        // the simulated configs collect fees in the output token on the curve (collect_fee_mode 1: a buy pays in the
        // coin) and in token B after graduation (DAMM v2 OnlyB): fees are in the coin exactly for curve buys that paid any
        const inCoin = r.side === "buy" && r.venue === "dbc" && BigInt(fees[i]!.t) + BigInt(fees[i]!.p) + BigInt(fees[i]!.r) > 0n;
        expect(r.fee_mint).toBe(inCoin ? mint : a.quote ? STOCK_MINT : WSOL);
        feeMints[inCoin ? "coin" : "quote"]++;
      });
    }
    // the simulated platform has a stock-paired config: its trades carry the stock quote
    expect(checkedStock).toBeGreaterThan(0);
    expect(feeMints.coin).toBeGreaterThan(0);
    expect(feeMints.quote).toBeGreaterThan(0);
  });

  test("CSV and Parquet hold the NDJSON export's rows, row for row; Parquet read back by the engine's own reader", async () => {
    const range = `from=${simFrom}`;
    const nd = await get(`/v1/public/exports/trades?${range}&format=ndjson`);
    const until = nd.res.headers.get("x-export-until-slot");
    const expected = parseNdjson(text(nd.bytes));
    expect(expected.length).toBeGreaterThanOrEqual(1500 / 2);
    const csv = await get(`/v1/public/exports/trades?${range}&to=${until}&format=csv`);
    expect(csv.res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(text(csv.bytes).startsWith(CSV_HEADER)).toBe(true);
    expect(csvAsRows(text(csv.bytes))).toEqual(expected);
    const pq = await get(`/v1/public/exports/trades?${range}&to=${until}&format=parquet`);
    expect(pq.res.headers.get("content-type")).toBe("application/vnd.apache.parquet");
    expect(pq.res.headers.get("content-disposition")).toBe(`attachment; filename="trades_all_${simFrom}-${until}.parquet"`);
    expect(await readParquet(pq.bytes, "all.parquet")).toEqual(expected);
    // an empty range is still a file of its format
    const empty = await get(`/v1/public/exports/trades?from=${BigInt(until!) + 1n}&format=parquet`);
    expect(await readParquet(empty.bytes, "empty.parquet")).toEqual([]);
    expect(text((await get(`/v1/public/exports/trades?from=${BigInt(until!) + 1n}&format=csv`)).bytes)).toBe(CSV_HEADER);
  });

  test("every coin: the stored trades of the range in chain order, hidden coins left out; a hidden or unknown coin is 404", async () => {
    const hidden = mints[0]!;
    await p.engines.sql`UPDATE agents SET hidden = true WHERE mint = ${hidden}`;
    try {
      const { res, bytes } = await get(`/v1/public/exports/trades?from=${simFrom}&format=ndjson`);
      const until = res.headers.get("x-export-until-slot")!;
      const rows = parseNdjson(text(bytes));
      const hiddenNow = (await p.engines.sql<{ mint: string }[]>`SELECT mint FROM agents WHERE hidden`).map((r) => r.mint);
      expect(hiddenNow).toContain(hidden);
      // the fees' mint as this file's simulated configs charge them (the coin for curve buys that paid fees); other files'
      // trades in the range (the same engines) as stored
      const stored = await p.engines.ch.query<{ signature: string; slot: number; mint: string; fee_mint: string }>(
        `SELECT signature, slot, mint,
           if(mint IN {ours:Array(String)}, if(side = 'buy' AND venue = 'dbc' AND toUInt128(trading_fee) + protocol_fee + referral_fee > 0, mint, quote_mint),
             if(fee_in_base = 1, mint, quote_mint)) AS fee_mint
         FROM trades WHERE slot BETWEEN {f:UInt64} AND {u:UInt64} AND mint NOT IN {h:Array(String)}
         ORDER BY slot, signature, ix, inner SETTINGS output_format_json_quote_64bit_integers = 0`,
        { f: simFrom.toString(), u: until, h: hiddenNow, ours: mints },
      );
      expect(stored.some((s) => mints.includes(s.mint) && s.fee_mint === s.mint)).toBe(true);
      expect(rows.map((r) => [r.signature, r.slot, r.mint, r.fee_mint])).toEqual(stored.map((s) => [s.signature, s.slot, s.mint, s.fee_mint]));
      expect(new Set(rows.map((r) => r.fee_mint === r.mint))).toEqual(new Set([true, false]));
      expect(rows.some((r) => r.mint === hidden)).toBe(false);
      const notFound = await p.call(`/v1/public/exports/trades?mint=${hidden}`);
      expect(notFound.status).toBe(404);
      expect(notFound.body.error.code).toBe("NOT_FOUND");
    } finally {
      await p.engines.sql`UPDATE agents SET hidden = false WHERE mint = ${hidden}`;
    }
    expect((await p.call(`/v1/public/exports/trades?mint=So11111111111111111111111111111111111111112`)).status).toBe(404);
  });

  test("resume: an export up to a slot, then from that slot + 1, is the whole export with no row twice", async () => {
    const mint = mints[1]!;
    const whole = parseNdjson(text((await get(`/v1/public/exports/trades?mint=${mint}&format=ndjson`)).bytes));
    const mid = whole[Math.floor(whole.length / 2)]!.slot as number;
    const first = await get(`/v1/public/exports/trades?mint=${mint}&to=${mid}&format=ndjson`);
    expect(first.res.headers.get("x-export-until-slot")).toBe(String(mid));
    const second = await get(`/v1/public/exports/trades?mint=${mint}&from=${mid + 1}&format=ndjson`);
    expect([...parseNdjson(text(first.bytes)), ...parseNdjson(text(second.bytes))]).toEqual(whole);
    expect(first.res.headers.get("content-disposition")).toBe(`attachment; filename="trades_${mint}_0-${mid}.ndjson"`);
  });

  test("a time range: from included, to excluded, as the trades' times say", async () => {
    const mint = mints[1]!;
    const whole = parseNdjson(text((await get(`/v1/public/exports/trades?mint=${mint}&format=ndjson`)).bytes));
    const t0 = whole[Math.floor(whole.length / 3)]!.time as string;
    const t1 = whole[Math.floor((2 * whole.length) / 3)]!.time as string;
    const part = parseNdjson(text((await get(`/v1/public/exports/trades?mint=${mint}&from=${t0}&to=${t1}&format=ndjson`)).bytes));
    expect(part).toEqual(whole.filter((r) => (r.time as string) >= t0 && (r.time as string) < t1));
    expect(part.length).toBeGreaterThan(0);
  });
});

describe("trade export: bad parameters", () => {
  test("every problem in one 400 VALIDATION_ERROR", async () => {
    const r = await p.call(`/v1/public/exports/trades?mint=not-a-mint&format=xml&from=yesterday&to=2026-13-45T00:00:00Z&unknown=1`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("VALIDATION_ERROR");
    expect(r.body.error.details.map((d: any) => d.field).sort()).toEqual(["format", "from", "mint", "to"]);
    const order = await p.call(`/v1/public/exports/trades?from=200&to=100`);
    expect(order.status).toBe(400);
    expect(order.body.error.details).toEqual([{ field: "from", message: "must not be after to" }]);
    const times = await p.call(`/v1/public/exports/trades?from=2026-01-02T00:00:00Z&to=2026-01-01`);
    expect(times.body.error.details).toEqual([{ field: "from", message: "must be before to (a time range excludes to)" }]);
    const big = await p.call(`/v1/public/exports/trades?to=18446744073709551616`);
    expect(big.body.error.details).toEqual([{ field: "to", message: "must be a slot (0 to 2^64-1) or an ISO 8601 time" }]);
    expect((await p.call(`/v1/public/exports/trades?to=18446744073709551615&format=ndjson`)).status).toBe(200);
  });
});

describe("trade export: bulk, concurrent writes, disconnects and the limit per client", () => {
  const BULK = 100_000;
  let base = 0n;
  let bulkMint = "";
  let server: { stop(force?: boolean): unknown; port: number };
  const streams = { started: 0, pulled: 0, stopped: 0 };

  /** The engine, counting what export streams pull and when they stop (to see a disconnect stop the query). */
  const counting = (ch: ClickHouse): ClickHouse => ({
    ...ch,
    kind: ch.kind,
    query: ch.query.bind(ch),
    command: ch.command.bind(ch),
    insert: ch.insert.bind(ch),
    ping: ch.ping.bind(ch),
    close: ch.close.bind(ch),
    stream: (sql, params, format, opts) =>
      (async function* () {
        streams.started++;
        try {
          for await (const b of ch.stream(sql, params, format, opts)) {
            streams.pulled += b.length;
            yield b;
          }
        } finally {
          streams.stopped++;
        }
      })(),
  });

  const insertBulk = (from: bigint, n: number, tag: string) =>
    p.engines.ch.command(
      `INSERT INTO trades (mint, slot, signature, ix, inner, at, venue, pool, config, quote_mint, side, trader, amount_quote, amount_base, sqrt_price,
         quote_reserve, migration_threshold, trading_fee, protocol_fee, referral_fee, base_decimals, price_sol, fee_in_base)
       SELECT {mint:String}, {from:UInt64} + intDiv(number, 3), concat({tag:String}, toString(number)), toUInt16(number % 2), toInt16(-1),
         toDateTime('2020-01-01 00:00:00', 'UTC'), 'dbc', 'BulkPool', 'cfg', 'So11111111111111111111111111111111111111112', if(number % 2 = 0, 'buy', 'sell'),
         'BulkTrader', 1000000000 + number, 5000000 + number, 0, 0, 0, number % 7, 0, 0, 6, 0.2, 0
       FROM numbers({n:UInt32})`,
      { mint: bulkMint, from: from.toString(), n, tag },
    );

  beforeAll(async () => {
    const [max] = await p.engines.ch.query<{ s: string }>("SELECT toString(max(slot)) AS s FROM trades");
    base = BigInt(max!.s) + 1000n;
    bulkMint = "Bu1k" + Math.random().toString(36).slice(2, 10).replace(/[0oOlI]/g, "x") + "1111111111111111111111111111111";
    await insertBulk(base, BULK, "bulk");
    const app = new Elysia()
      .use(errorHandler(createLogger("error")))
      .use(exportRoutes({ ch: counting(p.engines.ch), sql: p.engines.sql, configs: registry, clientOf: clientAddressOf([]), exportsPerClient: 2, log: createLogger("error") }))
      .listen({ port: 0, hostname: "127.0.0.1" });
    server = { stop: (f) => app.stop(f), port: app.server!.port! };
  });
  afterAll(async () => {
    await server?.stop(true);
  });
  const url = (q: string) => `http://127.0.0.1:${server.port}/v1/public/exports/trades?${q}`;

  test("a Parquet export of many engine blocks is one file, row for row the NDJSON export", async () => {
    const to = base + BigInt(Math.floor((BULK - 1) / 3));
    const nd = parseNdjson(text((await get(`/v1/public/exports/trades?from=${base}&to=${to}&format=ndjson`)).bytes));
    const pq = await get(`/v1/public/exports/trades?from=${base}&to=${to}&format=parquet`);
    const [meta] = await p.engines.ch.query<{ groups: string }>(
      "SELECT toString(length(row_groups)) AS groups FROM file({path:String}, ParquetMetadata)",
      { path: await Bun.write(join(tmp, "bulk-meta.parquet"), pq.bytes).then(() => join(tmp, "bulk-meta.parquet")) },
    );
    // chDB streams a Parquet file per block (16,384 rows here): this file was stitched from several
    expect(Number(meta!.groups)).toBeGreaterThan(2);
    const back = await readParquet(pq.bytes, "bulk.parquet");
    expect(back.length).toBe(BULK);
    expect(back).toEqual(nd);
  });

  test("rows written while an export streams are left out, and the next range (from = X-Export-Until-Slot + 1) has exactly them", async () => {
    const res = await p.app.handle(new Request(`http://local/v1/public/exports/trades?from=${base}&format=ndjson`));
    const until = BigInt(res.headers.get("x-export-until-slot")!);
    expect(until).toBe(base + BigInt(Math.floor((BULK - 1) / 3)));
    const reader = res.body!.getReader();
    const parts: Uint8Array[] = [(await reader.read()).value!];
    // the export is under way: write more trades, at the slots that follow
    await insertBulk(until + 1n, 30, "late");
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
    const rows = parseNdjson(text(Buffer.concat(parts)));
    expect(rows.length).toBe(BULK);
    expectChainOrder(rows);
    expect(new Set(rows.map((r) => r.signature)).size).toBe(BULK);
    expect(rows.every((r) => BigInt(r.slot as number) <= until && (r.signature as string).startsWith("bulk"))).toBe(true);
    expect(rows[0]).toEqual({
      signature: "bulk0", slot: Number(base), ix: 0, inner: -1, time: "2020-01-01T00:00:00.000Z", mint: bulkMint, pool: "BulkPool", venue: "dbc",
      side: "buy", trader: "BulkTrader", amount_sol: "1", amount_token: "5", price_sol: 0.2, trading_fee: "0", protocol_fee: "0", referral_fee: "0",
      quote_mint: null, quote_symbol: null, quote_amount: null, fee_mint: WSOL,
    });
    const next = await get(`/v1/public/exports/trades?from=${until + 1n}&format=ndjson`);
    const late = parseNdjson(text(next.bytes));
    expect(late.map((r) => r.signature)).toEqual(Array.from({ length: 30 }, (_, i) => `late${i}`).sort((a, b) => {
      const [sa, sb] = [Math.floor(Number(a.slice(4)) / 3), Math.floor(Number(b.slice(4)) / 3)];
      return sa - sb || (a < b ? -1 : 1);
    }));
    expect(next.res.headers.get("x-export-until-slot")).toBe(String(until + 10n));
  });

  test("a client that disconnects mid-stream stops the query and frees its slot", async () => {
    const before = { ...streams };
    const abort = new AbortController();
    const res = await fetch(url(`from=${base}&format=ndjson`), { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect((await reader.read()).value!.length).toBeGreaterThan(0);
    abort.abort();
    await until("the export's query to stop", async () => (streams.stopped > before.stopped ? true : undefined), 20_000);
    const pulled = streams.pulled - before.pulled;
    // the whole range is ~33 MB of NDJSON; the server stopped well before it
    expect(pulled).toBeLessThan(16 * 2 ** 20);
    expect(pulled).toBeGreaterThan(0);
  });

  test("at most EXPORT_CONCURRENCY_PER_CLIENT exports per client address; 429 RATE_LIMITED with Retry-After, free again once one ends", async () => {
    const open = [new AbortController(), new AbortController()];
    const stopped0 = streams.stopped;
    try {
      for (const a of open) expect((await fetch(url(`from=${base}&format=csv`), { signal: a.signal })).status).toBe(200);
      const third = await fetch(url(`from=${base}&format=csv`));
      expect(third.status).toBe(429);
      expect(third.headers.get("retry-after")).toBe("5");
      expect(((await third.json()) as any).error.code).toBe("RATE_LIMITED");
      open[0]!.abort();
      await until("the aborted export's slot to be free", async () => (streams.stopped > stopped0 ? true : undefined), 20_000);
      const again = new AbortController();
      const res = await fetch(url(`from=${base}&format=csv`), { signal: again.signal });
      expect(res.status).toBe(200);
      again.abort();
    } finally {
      for (const a of open) a.abort();
    }
    // bad parameters are answered without taking a slot
    expect((await fetch(url("format=xml"))).status).toBe(400);
  });
});

describe("npm run export (the CLI, a spawned process against the app on a socket)", () => {
  let server: { stop(force?: boolean): unknown; port: number };
  beforeAll(() => {
    const app = p.app.listen({ port: 0, hostname: "127.0.0.1" });
    server = { stop: (f) => app.stop(f), port: app.server!.port! };
  });
  afterAll(async () => {
    await server?.stop(true);
  });

  /** Runs the CLI to its end (killed after 60 s whatever happens); its exit code and stderr. */
  async function cli(...args: string[]) {
    const proc = Bun.spawn(["bun", "api/exports/cli/main.ts", "--api", `http://127.0.0.1:${server.port}`, ...args], { stderr: "pipe", stdout: "pipe" });
    const timer = setTimeout(() => proc.kill(), 60_000);
    try {
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      return { code, stderr };
    } finally {
      clearTimeout(timer);
      proc.kill();
    }
  }

  test("NDJSON to a file: the API's bytes, a summary naming the slot to continue from; --resume after a cut continues without a row twice", async () => {
    const mint = mints[2]!;
    const api = await get(`/v1/public/exports/trades?mint=${mint}&format=ndjson`);
    const until = api.res.headers.get("x-export-until-slot")!;
    const out = join(tmp, "cli.ndjson");
    const run = await cli("--mint", mint, "--format", "ndjson", "--out", out);
    expect(run.code).toBe(0);
    expect(readFileSync(out)).toEqual(Buffer.from(api.bytes));
    const rows = parseNdjson(text(api.bytes));
    expect(run.stderr).toContain(`${rows.length} rows`);
    expect(run.stderr).toContain(`trades up to slot ${until}`);
    // an interrupted file: two thirds of the rows and half a line
    const whole = text(api.bytes);
    const lines = whole.split("\n");
    const cut = lines.slice(0, Math.floor(lines.length * 0.66)).join("\n") + "\n" + lines[Math.floor(lines.length * 0.66)]!.slice(0, 40);
    writeFileSync(out, cut);
    expect((await cli("--mint", mint, "--format", "ndjson", "--out", out)).code).toBe(2); // exists, no --resume
    const resumed = await cli("--mint", mint, "--format", "ndjson", "--out", out, "--resume");
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("resuming");
    expect(readFileSync(out, "utf8")).toBe(whole);
  });

  test("CSV: a resumed file keeps one header", async () => {
    const out = join(tmp, "cli.csv");
    const mint = mints[3]!;
    expect((await cli("--mint", mint, "--out", out)).code).toBe(0);
    const whole = readFileSync(out, "utf8");
    expect(whole).toBe(text((await get(`/v1/public/exports/trades?mint=${mint}&format=csv`)).bytes));
    writeFileSync(out, whole.slice(0, Math.floor(whole.length / 2)));
    expect((await cli("--mint", mint, "--out", out, "--resume")).code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(whole);
  });

  test("Parquet: a whole file per run; --resume writes the next part from the recorded slot; together they are the whole export", async () => {
    const mint = mints[1]!;
    const whole = parseNdjson(text((await get(`/v1/public/exports/trades?mint=${mint}&format=ndjson`)).bytes));
    const mid = whole[Math.floor(whole.length / 2)]!.slot as number;
    const out = join(tmp, "cli.parquet");
    const first = await cli("--mint", mint, "--format", "parquet", "--to", String(mid), "--out", out);
    expect(first.code).toBe(0);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(JSON.parse(readFileSync(`${out}.progress.json`, "utf8"))).toEqual({ nextFrom: String(mid + 1), parts: 1 });
    const second = await cli("--mint", mint, "--format", "parquet", "--out", out, "--resume");
    expect(second.code).toBe(0);
    const part2 = join(tmp, "cli.part2.parquet");
    expect(second.stderr).toContain(`wrote ${part2}`);
    const rows = [...(await readParquet(readFileSync(out), "r1.parquet")), ...(await readParquet(readFileSync(part2), "r2.parquet"))];
    expect(rows).toEqual(whole);
  });

  test("bad usage exits 2; an API refusal exits 1 with the API's error", async () => {
    expect((await cli("--format", "xml", "--out", join(tmp, "x"))).code).toBe(2);
    const refused = await cli("--from", "yesterday", "--out", join(tmp, "refused.csv"));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("VALIDATION_ERROR");
  });
});
