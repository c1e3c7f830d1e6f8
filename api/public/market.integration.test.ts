import { describe, expect, test, beforeAll } from "bun:test";
import { testPlatform } from "../../compose/testing/platform";
import { createSimulator, fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { formatUnits } from "../../ingest/contract/market-math";
import { createMarketBoard } from "./market-board";
import { readMarketRows } from "./market-sql";
import { until } from "../../infra/testing/wait";

// Two days of simulated chain, posted through the webhook, ending now: market fields are
// checked against what the raw trades say.
const SEED = 11;
const configs = fixtureSimConfigs(SEED);
let p: Awaited<ReturnType<typeof testPlatform>>;
let mints: string[] = [];
let sim: ReturnType<typeof createSimulator>;

/** The engine, with `seen` told of every query's SQL before it runs. */
const watched = (ch: typeof p.engines.ch, seen: (sql: string) => void): typeof ch => ({
  ...ch,
  command: ch.command.bind(ch),
  insert: ch.insert.bind(ch),
  async query(sql, params) {
    seen(sql);
    return ch.query(sql, params);
  },
});

describe("market fields from chain data", () => {
  beforeAll(async () => {
    p = await testPlatform(simulatedConfigRegistry(configs));
    const now = Math.floor(Date.now() / 1000);
    const count = 3000;
    sim = createSimulator({ seed: SEED, configs, pools: 6, startTime: now - 2 * 86400, secondsPerTx: (2 * 86400) / count });
    for (let i = 0; i < count; i += 250) expect((await p.postWebhook(sim.next(250))).status).toBe(200);
    mints = sim.state().pools.map((x) => x.mint);
  });

  test("volume24hSol is the exact sum of the trades in the window; price is the last trade's", async () => {
    const since = Math.floor(Date.now() / 1000) - 86400;
    for (const mint of mints) {
      const agent = (await p.call(`/v1/public/agents/${mint}`)).body;
      const [row] = await p.engines.ch.query<{ v: string; last: number }>(
        `SELECT toString(sumIf(amount_quote, toStartOfMinute(at) >= toDateTime({since:UInt32}, 'UTC'))) AS v,
                argMax(price_sol, (slot, ix, inner, bitAnd(cityHash64(signature), 4294967295))) AS last
         FROM trades WHERE mint = {mint:String}`,
        { mint, since },
      );
      // the request may fall in a later second than `since`; both are minute-aligned windows
      expect(agent.market.volume24hSol).toBe(formatUnits(BigInt(row!.v), 9));
      expect(agent.market.priceSol).toBe(row!.last);
    }
  });

  test("change24hPct compares with the last trade at least 24 h old (null for younger coins)", async () => {
    const cutoff = Math.floor(Date.now() / 1000) - 86400;
    let checked = 0;
    for (const mint of mints) {
      const agent = (await p.call(`/v1/public/agents/${mint}`)).body;
      const [row] = await p.engines.ch.query<{ first: number; n: string; ref: number }>(
        `SELECT toUnixTimestamp(min(at)) AS first, toString(countIf(at < toStartOfMinute(toDateTime({cutoff:UInt32}, 'UTC')))) AS n,
                argMaxIf(price_sol, (slot, ix, inner, bitAnd(cityHash64(signature), 4294967295)), at < toStartOfMinute(toDateTime({cutoff:UInt32}, 'UTC'))) AS ref
         FROM trades WHERE mint = {mint:String}`,
        { mint, cutoff },
      );
      if (!row || row.n === "0" || row.first > cutoff) {
        expect(agent.market.change24hPct).toBeNull();
      } else {
        checked++;
        expect(agent.market.change24hPct).toBeCloseTo((agent.market.priceSol / row.ref - 1) * 100, 3);
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  test("graduated coins report their DAMM v2 pool and 100% progress; others the curve's progress", async () => {
    const state = await p.engines.ch.query<{ mint: string; damm_pool: string }>(
      "SELECT mint, damm_pool FROM pool_events WHERE kind = 'migration' AND mint IN {mints:Array(String)}",
      { mints },
    );
    const graduated = new Map(state.map((s) => [s.mint, s.damm_pool]));
    for (const mint of mints) {
      const { market } = (await p.call(`/v1/public/agents/${mint}`)).body;
      expect(market.graduated).toBe(graduated.has(mint));
      if (graduated.has(mint)) {
        expect(market.pool).toBe(graduated.get(mint));
        expect(market.progressPct).toBe(100);
      } else {
        expect(market.progressPct).toBeGreaterThanOrEqual(0);
        expect(market.progressPct).toBeLessThan(100);
      }
    }
  });

  test("sorts: marketcap and trending order by the exact values, with stable keyset pages", async () => {
    for (const sort of ["marketcap", "trending", "volume", "new"]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = (await p.call(`/v1/public/agents?sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ""}`)).body;
        seen.push(...res.items.map((a: any) => a.mint));
        cursor = res.nextCursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      for (const m of mints) expect(seen).toContain(m);
    }
    const byCap = (await p.call("/v1/public/agents?sort=marketcap&limit=50")).body.items.filter((a: any) => mints.includes(a.mint));
    const caps = byCap.map((a: any) => Number(a.market.marketCapSol));
    expect([...caps].sort((a, b) => b - a)).toEqual(caps);
    const byVolume = (await p.call("/v1/public/agents?sort=trending&limit=50")).body.items.filter((a: any) => mints.includes(a.mint));
    const vols = byVolume.map((a: any) => Number(a.market.volume24hSol));
    expect([...vols].sort((a, b) => b - a)).toEqual(vols);
  });

  test("activity with trades pages through every item once, newest first", async () => {
    const mint = mints[0]!;
    const n = (await p.engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM trades WHERE mint = {mint:String}", { mint }))[0]!.n;
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = (await p.call(`/v1/public/agents/${mint}/activity?kinds=launch,trade&limit=50${cursor ? `&cursor=${cursor}` : ""}`)).body;
      seen.push(...res.items);
      cursor = res.nextCursor;
    } while (cursor);
    expect(seen.filter((i) => i.kind === "trade")).toHaveLength(Number(n));
    expect(seen.filter((i) => i.kind === "launch")).toHaveLength(1);
    expect(new Set(seen.map((i) => i.id)).size).toBe(seen.length);
    const keys = seen.map((i) => [Date.parse(i.at), i.id] as const);
    for (let i = 1; i < keys.length; i++) {
      const [a, b] = [keys[i - 1]!, keys[i]!];
      expect(a[0] > b[0] || (a[0] === b[0] && a[1] > b[1])).toBe(true);
    }
  });

  test("the board re-reads day-ago prices once a minute, and its rows match a fresh read", async () => {
    let windowReads = 0;
    const ch = p.engines.ch;
    const spy = watched(ch, (sql) => {
      if (sql.includes("FROM volume_1m") && sql.includes("argMaxMerge(close)")) windowReads++;
    });
    // an injected clock: each step makes the board stale, and the test waits for the reload itself
    let t = Date.now();
    const t0 = t;
    const board = createMarketBoard(spy, 1000, () => t);
    const first = await board.rows();
    for (let i = 0; i < 3; i++) {
      t += 2000;
      const before = await board.rows(); // answers the old board and starts a background reload
      await until(`reload ${i + 1}`, async () => ((await board.rows()) !== before ? true : undefined));
    }
    expect(windowReads).toBe(1); // three reloads within a minute of board time: the day-ago prices were read once
    // read at the board's first load time: the day-ago prices it keeps are those of that minute (a fresh read at the real
    // time would look at another minute once the test crosses one)
    const fresh = new Map((await readMarketRows(ch, null, Math.floor(t0 / 1000))).map((r) => [r.mint, r.priceDayAgo]));
    for (const row of (await board.rows()).filter((r) => mints.includes(r.mint))) expect(row.priceDayAgo).toBe(fresh.get(row.mint) ?? null);
    expect(first.length).toBeGreaterThan(0);
  });

  test("the board re-reads only what changed since its last load, and its rows match a fresh read after trades and a delete", async () => {
    const reads: string[] = [];
    const ch = p.engines.ch;
    const spy = watched(ch, (sql) => reads.push(sql));
    let t = Date.now();
    const board = createMarketBoard(spy, 1000, () => t);
    const reload = async () => {
      reads.length = 0;
      t += 2000;
      const before = await board.rows();
      return until("reload", async () => {
        const now = await board.rows();
        return now !== before ? now : undefined;
      });
    };
    // what the board shows of each coin equals a fresh read (the day-ago price has its own test and cache)
    const matchesFresh = async (rows: Awaited<ReturnType<typeof board.rows>>) => {
      const fresh = new Map((await readMarketRows(ch, null, Math.floor(t / 1000))).map((r) => [r.mint, { ...r, priceDayAgo: null }]));
      expect(rows.length).toBe(fresh.size);
      for (const r of rows) expect({ ...r, priceDayAgo: null }).toEqual(fresh.get(r.mint)!);
    };
    await board.rows();
    const fullMarket = (sql: string) => sql.includes("FROM market_state") && sql.includes("GROUP BY mint") && !sql.includes("WHERE");
    const ofNewParts = (sql: string) => sql.includes("_partition_id");

    // nothing written: only the part lists (and the 24 h volumes, a sliding window) are read again
    let rows = await reload();
    expect(reads.some((q) => q.includes("FROM agent_directory") || q.includes("FROM market_state") || q.includes("FROM burn_totals"))).toBe(false);
    await matchesFresh(rows);

    // new trades: market_state is read again for the coins written since only
    for (let i = 0; i < 3; i++) expect((await p.postWebhook(sim.next(20))).status).toBe(200);
    rows = await reload();
    expect(reads.some(ofNewParts)).toBe(true);
    expect(reads.some(fullMarket)).toBe(false);
    await matchesFresh(rows);

    // a delete (a mutation) may remove rows: the table is read whole; the coin's rows are put back after
    const gone = mints[0]!;
    await ch.command("CREATE TABLE IF NOT EXISTS market_state_board_test AS market_state");
    await ch.command("TRUNCATE TABLE market_state_board_test");
    await ch.command("INSERT INTO market_state_board_test SELECT * FROM market_state WHERE mint = {m:String}", { m: gone });
    try {
      await ch.command("ALTER TABLE market_state DELETE WHERE mint = {m:String} SETTINGS mutations_sync = 2", { m: gone });
      rows = await reload();
      expect(reads.some(fullMarket)).toBe(true);
      expect(rows.find((r) => r.mint === gone)?.tradedPriceSol).toBeNull();
      await matchesFresh(rows);
    } finally {
      await ch.command("INSERT INTO market_state SELECT * FROM market_state_board_test");
      await ch.command("DROP TABLE market_state_board_test");
    }
    rows = await reload();
    expect(rows.find((r) => r.mint === gone)?.tradedPriceSol).not.toBeNull();
    await matchesFresh(rows);
  });
});
