/**
 * Reads the market rows behind agent objects: the directory (newest version per
 * coin), market state, burns and 24 h volume, as four small keyed reads joined
 * here by mint (ClickHouse joins of these sub-aggregates cost ten times more).
 * Market cap is exact: floor(sqrt² × circulating supply / 2^128) lamports.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import { valueAtSqrt } from "../../ingest/contract/market-math";

const where = (one: boolean, extra = "") => (one ? `WHERE mint = {mint:String} ${extra}` : extra ? `WHERE ${extra.replace(/^AND /, "")}` : "");

const DIRECTORY = (one: boolean) => `
  SELECT mint,
    argMax(name, version) AS name, argMax(coin_name, version) AS coin_name, argMax(symbol, version) AS symbol,
    argMax(category, version) AS category, argMax(hidden, version) AS hidden,
    toString(toUnixTimestamp64Milli(argMax(created_at, version))) AS created_ms,
    toString(argMax(supply_atoms, version)) AS supply_atoms, toString(argMax(start_sqrt_price, version)) AS start_sqrt_price,
    argMax(decimals, version) AS decimals
  FROM agent_directory ${where(one)} GROUP BY mint`;

const MARKET = (one: boolean, filter = where(one)) => `
  SELECT mint,
    toString(argMaxMerge(sqrt_price)) AS sqrt_price, argMaxMerge(price_sol) AS price_sol,
    argMaxMerge(venue) AS venue, toString(argMaxMerge(quote_reserve)) AS quote_reserve,
    toString(max(migration_threshold)) AS migration_threshold,
    toUnixTimestamp(min(first_at)) AS first_at, toUnixTimestamp(max(last_at)) AS last_at, toString(sum(volume_sol)) AS volume_all
  FROM market_state ${filter} GROUP BY mint`;

const VOLUME_24H = (one: boolean) => `
  SELECT mint, toString(sum(volume_sol)) AS volume_24h
  FROM volume_1m WHERE minute >= toDateTime({since:UInt32}, 'UTC') ${one ? "AND mint = {mint:String}" : ""} GROUP BY mint`;

const MIGRATIONS = (one: boolean) =>
  `SELECT mint, argMax(damm_pool, slot) AS damm_pool FROM pool_events WHERE kind = 'migration' ${one ? "AND mint = {mint:String}" : ""} GROUP BY mint`;

/** Closes of the last trade before the cutoff minute within a two-day window, per coin (reads only that window). */
const CLOSE_IN_WINDOW = (one: boolean) => `
  SELECT mint, argMaxMerge(close) AS price FROM volume_1m
  WHERE minute >= toDateTime({from:UInt32}, 'UTC') AND minute < toStartOfMinute(toDateTime({cutoff:UInt32}, 'UTC'))
    ${one ? "AND mint = {mint:String}" : ""}
  GROUP BY mint`;

/** The same for coins whose last trade before the cutoff is older than the window (keyed by coin). */
const CLOSE_BEFORE = `
  SELECT mint, argMaxMerge(close) AS price FROM candles_1m
  WHERE mint IN {mints:Array(String)} AND minute < toStartOfMinute(toDateTime({cutoff:UInt32}, 'UTC'))
  GROUP BY mint`;

const BURNED = (one: boolean) => `SELECT mint, toString(sum(burned)) AS burned FROM burn_totals ${where(one)} GROUP BY mint`;

export type MarketRow = {
  mint: string;
  name: string;
  coin_name: string;
  symbol: string;
  /** coin name, ticker and agent name, lowercased once for `q` */
  searchText: string;
  category: string;
  hidden: number;
  createdMs: number;
  decimals: number;
  sqrtPrice: bigint;
  /** price of the last trade; null before the first trade */
  tradedPriceSol: number | null;
  venue: string;
  quoteReserve: bigint;
  migrationThreshold: bigint;
  /** unix seconds of the first and last trade; null before the first trade */
  firstAt: number | null;
  lastAt: number | null;
  /** the DAMM v2 pool once graduated */
  dammPool: string | null;
  /** price of the last trade at least 24 h old; null when the coin is younger than 24 h */
  priceDayAgo: number | null;
  volumeAll: bigint;
  volume24h: bigint;
  marketCap: bigint;
};

type Dir = { mint: string; name: string; coin_name: string; symbol: string; category: string; hidden: number; created_ms: string; supply_atoms: string; start_sqrt_price: string; decimals: number };
type Mkt = { mint: string; sqrt_price: string; price_sol: number; venue: string; quote_reserve: string; migration_threshold: string; first_at: number; last_at: number; volume_all: string };

/**
 * Day-ago prices of every coin, kept between board loads: the reference point moves one
 * minute per minute, so re-reading it every minute (not every load) is enough.
 */
export type DayAgoCache = { at: number; prices: Map<string, number> } | null;
const DAY_AGO_MAX_AGE_S = 60;

/**
 * What a board keeps between loads of every coin's rows (createMarketBoard): the day-ago prices
 * (`current`) and, in `stored`, the rows of the tables below with the parts they were read from.
 */
export type BoardCache = { current: DayAgoCache; stored?: StoredTables | null };

/**
 * The tables of the board whose rows it keeps between loads. A MergeTree table's rows change only
 * through new parts (an insert, a merge, a mutation each makes one), so a table whose active parts
 * are those of the last load holds the same rows and is not read again; `market_state`, which
 * every trade changes, is re-read only for the coins with rows written since (MARKET_SINCE).
 */
const KEPT_TABLES = ["agent_directory", "market_state", "burn_totals", "pool_events"];
const PARTS = `
  SELECT table, name, partition_id, toString(min_block_number) AS min_block, toString(max_block_number) AS max_block, toString(data_version) AS data_version
  FROM system.parts WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)}`;
type Part = { table: string; name: string; partition_id: string; min_block: string; max_block: string; data_version: string };
type StoredTables = {
  parts: Map<string, Part[]>; dirs: Dir[]; markets: Map<string, Mkt>; burns: { mint: string; burned: string }[]; migrations: { mint: string; damm_pool: string }[];
  /** each coin's figures derived from its rows of the last load (readMarketRows) */
  derived?: Derived;
};
type Derived = Map<string, { d: Dir; m: Mkt | undefined; burned: bigint | undefined; sqrtPrice: bigint; searchText: string; quoteReserve: bigint; migrationThreshold: bigint; volumeAll: bigint; marketCap: bigint }>;

/**
 * The market rows of the coins with rows in blocks written after the last load (`after_max`: the greatest block number the
 * parts of partition `after_in` held then; a new partition's are all new): the coins of every part holding a newer block,
 * merged since or not (a part's name holds its block range), so a merge between the part list and this read loses none.
 */
const MARKET_SINCE = MARKET(
  false,
  "WHERE mint IN (SELECT mint FROM market_state WHERE toUInt64(splitByChar('_', substring(_part, length(_partition_id) + 2))[2]) > arrayElement({after_max:Array(UInt64)}, indexOf({after_in:Array(String)}, _partition_id)))",
);

/**
 * How a table's active parts changed since the last load: `same` (no part new or gone), else `whole`
 * when rows may have left it (a mutation, a delete, a truncation: a part gone that no part now covers,
 * or a new part with a mutation's data version), so it is read whole; otherwise rows were only added
 * (inserts, and merges of what was there).
 */
export function partChanges(before: Part[] | undefined, now: Part[]): { same: true } | { same: false; whole: boolean } {
  if (!before) return { same: false, whole: true };
  const had = new Set(before.map((p) => p.name));
  const has = new Set(now.map((p) => p.name));
  const added = now.filter((p) => !had.has(p.name));
  const gone = before.filter((p) => !has.has(p.name));
  if (added.length === 0 && gone.length === 0) return { same: true };
  const mutated = added.some((p) => BigInt(p.data_version) !== BigInt(p.min_block));
  const covered = (g: Part) => now.some((p) => p.partition_id === g.partition_id && BigInt(p.min_block) <= BigInt(g.min_block) && BigInt(p.max_block) >= BigInt(g.max_block));
  return { same: false, whole: mutated || !gone.every(covered) };
}

/** Every coin's stored rows of the kept tables, read again only where their parts changed since `last` (null: all). */
async function readKeptTables(ch: ClickHouse, last: StoredTables | null, params: Record<string, unknown>): Promise<StoredTables> {
  const parts = new Map<string, Part[]>(KEPT_TABLES.map((t) => [t, []]));
  for (const p of await ch.query<Part>(PARTS, { tables: KEPT_TABLES })) parts.get(p.table)!.push(p);
  const change = (table: string) => partChanges(last?.parts.get(table), parts.get(table)!);
  // one read at a time: a request's read waits behind one of them at most (chDB runs one query at a time)
  const dir = change("agent_directory");
  const dirs = dir.same ? last!.dirs : await ch.query<Dir>(DIRECTORY(false), params);
  const mkt = change("market_state");
  let markets: Map<string, Mkt>;
  if (mkt.same) markets = last!.markets;
  else if (mkt.whole) markets = new Map((await ch.query<Mkt>(MARKET(false), params)).map((m) => [m.mint, m]));
  else {
    markets = new Map(last!.markets);
    const after: Record<string, number> = {};
    for (const p of last!.parts.get("market_state")!) after[p.partition_id] = Math.max(after[p.partition_id] ?? 0, Number(p.max_block));
    const since = { after_in: Object.keys(after), after_max: Object.values(after) };
    for (const m of await ch.query<Mkt>(MARKET_SINCE, { ...params, ...since })) markets.set(m.mint, m);
  }
  const burn = change("burn_totals");
  const burns = burn.same ? last!.burns : await ch.query<{ mint: string; burned: string }>(BURNED(false), params);
  const pool = change("pool_events");
  const migrations = pool.same ? last!.migrations : await ch.query<{ mint: string; damm_pool: string }>(MIGRATIONS(false), params);
  return { parts, dirs, markets, burns, migrations, derived: last?.derived };
}

/**
 * Every coin's market row, or one coin's (`mint`). `cache` (every coin's only): what the last
 * load of the same board read, reused where it cannot have changed (BoardCache).
 */
export async function readMarketRows(
  ch: ClickHouse,
  mint: string | null,
  nowSeconds = Math.floor(Date.now() / 1000),
  boardCache?: BoardCache,
): Promise<MarketRow[]> {
  const one = mint !== null;
  const cutoff = nowSeconds - 86400;
  const params = { mint, since: cutoff, cutoff, from: cutoff - 2 * 86400 };
  const dayAgoFresh = boardCache?.current && nowSeconds - boardCache.current.at < DAY_AGO_MAX_AGE_S;
  let dirs: Dir[], markets: Mkt[], volumes: { mint: string; volume_24h: string }[], burns: { mint: string; burned: string }[];
  let migrations: { mint: string; damm_pool: string }[], closes: { mint: string; price: number }[] | null;
  let marketMap: Map<string, Mkt> | undefined;
  if (!one && boardCache) {
    const kept = await readKeptTables(ch, boardCache.stored ?? null, params);
    boardCache.stored = kept;
    ({ dirs, burns, migrations } = kept);
    markets = [...kept.markets.values()];
    marketMap = kept.markets;
    volumes = await ch.query<{ mint: string; volume_24h: string }>(VOLUME_24H(one), params);
    closes = dayAgoFresh ? null : await ch.query<{ mint: string; price: number }>(CLOSE_IN_WINDOW(one), params);
  } else {
    [dirs, markets, volumes, burns, migrations, closes] = await Promise.all([
      ch.query<Dir>(DIRECTORY(one), params),
      ch.query<Mkt>(MARKET(one), params),
      ch.query<{ mint: string; volume_24h: string }>(VOLUME_24H(one), params),
      ch.query<{ mint: string; burned: string }>(BURNED(one), params),
      ch.query<{ mint: string; damm_pool: string }>(MIGRATIONS(one), params),
      dayAgoFresh ? null : ch.query<{ mint: string; price: number }>(CLOSE_IN_WINDOW(one), params),
    ]);
  }
  const market = marketMap ?? new Map(markets.map((m) => [m.mint, m]));
  const volume = new Map(volumes.map((v) => [v.mint, BigInt(v.volume_24h)]));
  const burned = new Map(burns.map((b) => [b.mint, BigInt(b.burned)]));
  const damm = new Map(migrations.map((m) => [m.mint, m.damm_pool]));
  let dayAgo: Map<string, number>;
  if (closes) {
    dayAgo = new Map(closes.map((c) => [c.mint, c.price]));
    if (boardCache) boardCache.current = { at: nowSeconds, prices: dayAgo };
  } else dayAgo = boardCache!.current!.prices;

  // A coin whose last trade is older than the cutoff: that trade is the reference (change 0).
  // One that traded since but not in the window: read its candles (rare, keyed by coin).
  const needsOlder = markets.filter((m) => Number(m.first_at) <= cutoff && Number(m.last_at) > cutoff && !dayAgo.has(m.mint)).map((m) => m.mint);
  if (needsOlder.length) {
    for (const c of await ch.query<{ mint: string; price: number }>(CLOSE_BEFORE, { mints: needsOlder, cutoff })) dayAgo.set(c.mint, c.price);
  }

  // what a coin's row derives from its directory, market and burn rows alone: kept between loads while they are the same rows
  const last = boardCache?.stored?.derived;
  const derived: Derived = new Map();
  const derive = (d: Dir, m: Mkt | undefined, burnedAtoms: bigint | undefined) => {
    const had = last?.get(d.mint);
    if (had && had.d === d && had.m === m && had.burned === burnedAtoms) return had;
    const sqrtPrice = BigInt(m?.sqrt_price ?? d.start_sqrt_price);
    const supply = BigInt(d.supply_atoms) - (burnedAtoms ?? 0n);
    return {
      d, m, burned: burnedAtoms, sqrtPrice,
      searchText: `${d.coin_name}\u0000${d.symbol}\u0000${d.name}`.toLowerCase(),
      quoteReserve: BigInt(m?.quote_reserve ?? "0"),
      migrationThreshold: BigInt(m?.migration_threshold ?? "0"),
      volumeAll: BigInt(m?.volume_all ?? "0"),
      marketCap: valueAtSqrt(sqrtPrice, supply > 0n ? supply : 0n),
    };
  };
  const toRow = (d: Dir): MarketRow => {
    const m = market.get(d.mint);
    const x = derive(d, m, burned.get(d.mint));
    derived.set(d.mint, x);
    const { sqrtPrice, searchText, quoteReserve, migrationThreshold, volumeAll, marketCap } = x;
    const firstAt = m ? Number(m.first_at) : null;
    const lastAt = m ? Number(m.last_at) : null;
    const priceDayAgo =
      !m || firstAt! > cutoff ? null : lastAt! <= cutoff ? m.price_sol : (dayAgo.get(d.mint) ?? null);
    return {
      mint: d.mint,
      name: d.name,
      coin_name: d.coin_name,
      symbol: d.symbol,
      searchText,
      category: d.category,
      hidden: Number(d.hidden),
      createdMs: Number(d.created_ms),
      decimals: d.decimals,
      sqrtPrice,
      tradedPriceSol: m ? m.price_sol : null,
      venue: m?.venue ?? "",
      quoteReserve,
      migrationThreshold,
      firstAt,
      lastAt,
      dammPool: damm.get(d.mint) ?? null,
      priceDayAgo,
      volumeAll,
      volume24h: volume.get(d.mint) ?? 0n,
      marketCap,
    };
  };
  // Built in slices, yielding between them, so a full board never holds the event loop for long.
  const out: MarketRow[] = [];
  for (let i = 0; i < dirs.length; i += 1000) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    for (const d of dirs.slice(i, i + 1000)) out.push(toRow(d));
  }
  if (boardCache?.stored) boardCache.stored.derived = derived;
  return out;
}
