/**
 * The analytics overview's topEarners: the creator's side of each coin's curve trading fees
 * (`coin_fees_span`, ClickHouse migrations 0013 and 0017) over the whole UTC days a window
 * touches, floored per coin and config, greatest first (then the mint), the first TOP_EARNERS.
 *
 * A GROUP BY of every coin's span rows per request cost 8–20 ms at 10k coins (bench/README.md).
 * A window's closed days (every day before today) change only at the day boundary or when a
 * late trade lands on one of them (a backfill, a reconciliation heal), so their per-coin sums
 * are grouped once and kept in this process (`Closed`, per closed days and SOL configs), and a
 * request reads, in one part of the overview's read:
 *  - the closed days' totals stored now (level DAY_TOTALS rows, written by the spans' own view
 *    in the same part as the coins' rows: ClickHouse migration 0018), compared with the total
 *    kept with the sums. Fees are never negative and rows are only added (trades are never
 *    changed or deleted; merges keep sums), so a trade stored on a closed day with a fee makes
 *    them differ, and the closed days are grouped again (a fee-less one changes no figure).
 *    The total kept is the one read before the grouping: a trade stored in between is in the
 *    sums but not in it, so the next request groups again; none can be missed.
 *  - today's rows (level 0, today and later) of the coins that may still reach the top: the
 *    first CANDIDATES of the closed days' ranking, and any other whose fees today could lift it
 *    past the tenth of that ranking (the bound is proved where it is computed, topEarnersPlan).
 * and merges them here, exact to the lamport (top-earners.platform-wide.test.ts and
 * analytics.platform-wide.test.ts check it against ledgers of the raw trades). A replica's
 * first request of a day (or after a late trade) groups the closed days: one more read.
 */
import type { ClickHouse } from "../../infra/clickhouse";

export const TOP_EARNERS = 10;
/** Coins taken as candidates from the closed days' ranking (more: fewer of today's rows read; bench/README.md). */
const CANDIDATES = 100;
/** The longest span of `coin_fees_span`: 2^5 days. */
const MAX_SPAN_LEVEL = 5;
/** The level of `coin_fees_span`'s rows of each day's total per config (mint '', ClickHouse migration 0018). */
const DAY_TOTALS = 255;

/**
 * Days `from`..`to` (day numbers, inclusive) as aligned spans [level, start]: 2^level days
 * from `start`, a multiple of 2^level, level ≤ MAX_SPAN_LEVEL; the fewest such spans, in order.
 */
export function daySpans(from: number, to: number): [number, number][] {
  const spans: [number, number][] = [];
  for (let day = from; day <= to; ) {
    let level = MAX_SPAN_LEVEL;
    while (level > 0 && (day % 2 ** level !== 0 || day + 2 ** level - 1 > to)) level--;
    spans.push([level, day]);
    day += 2 ** level;
  }
  return spans;
}

/** The earners' configs: the SOL-quoted ones (only their fees are lamports) and each one's creatorPct. */
export type EarnerConfigs = { sol: string[]; pcts: number[] };

/**
 * The closed days `from`..`to` as a condition on `coin_fees_span` with its parameters: the level-5 spans
 * (contiguous in daySpans's order) as one range of starts, the others by (level, start).
 */
function closedDays(from: number, to: number): { where: string; params: Record<string, unknown> } {
  const spans = daySpans(from, to);
  const full = spans.filter(([level]) => level === MAX_SPAN_LEVEL).map(([, start]) => start);
  const rest = spans.filter(([level]) => level !== MAX_SPAN_LEVEL);
  const where = [
    ...(full.length ? [`(level = ${MAX_SPAN_LEVEL} AND start >= toDate({full_from:UInt16}) AND start <= toDate({full_to:UInt16}))`] : []),
    ...(rest.length ? ["(level, toUInt16(start)) IN arrayZip({levels:Array(UInt8)}, {starts:Array(UInt16)})"] : []),
  ].join(" OR ");
  return {
    where: `(${where || "0"}) AND config IN {sol:Array(String)}`,
    params: { full_from: full[0] ?? 0, full_to: full.at(-1) ?? 0, levels: rest.map((s) => s[0]), starts: rest.map((s) => s[1]) },
  };
}

/** The closed days' sums of one window, as of one read. */
type Closed = {
  /** the closed days' total stored (level DAY_TOTALS) when read before the grouping: checked at each read */
  total: bigint;
  /** per coin, per config: the closed days' trading fees */
  fees: Map<string, Map<string, bigint>>;
  /** coins with fees, by their closed days' lamports, greatest first, then the mint */
  ranked: { mint: string; lamports: bigint }[];
  /** today's fees were too many for reading only the candidates' (`light`) */
  busy: boolean;
};
const kept = new WeakMap<ClickHouse, Map<string, Closed>>();

/** A coin's lamports: each config's fees × its creatorPct, floored per config, summed. */
function lamportsOf(fees: Map<string, bigint>, pct: Map<string, bigint>): bigint {
  let l = 0n;
  for (const [config, fee] of fees) l += (fee * pct.get(config)!) / 100n;
  return l;
}

/** The first CANDIDATES + 1 coins of `ranked` not hidden (all of them would cost a request a pass over every coin). */
function shownFirst(ranked: Closed["ranked"], hidden: ReadonlySet<string>): Closed["ranked"] {
  const out: Closed["ranked"] = [];
  for (const e of ranked) {
    if (out.length > CANDIDATES) break;
    if (!hidden.has(e.mint)) out.push(e);
  }
  return out;
}

/** Earners: greatest lamports first, then the mint (as the engine orders strings: bytes; mints are ASCII). */
const byLamports = (a: { mint: string; lamports: bigint }, b: { mint: string; lamports: bigint }) =>
  a.lamports === b.lamports ? (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0) : a.lamports > b.lamports ? -1 : 1;

/**
 * Top earners of the days `firstDay`..`today` and later (level-0 rows after today count, as
 * trades stamped ahead of the clock do), for one overview. Use: `plan` before the overview's
 * read, its `parts` joined to that read (platformParts), then `finish` with their answers.
 */
export function topEarnersPlan(ch: ClickHouse, cfg: EarnerConfigs, firstDay: number, today: number, hidden: readonly string[]) {
  const pct = new Map(cfg.sol.map((c, i) => [c, BigInt(cfg.pcts[i]!)]));
  const key = `${firstDay}:${today}:${cfg.sol.map((c, i) => `${c}=${cfg.pcts[i]}`).join(",")}`;
  const memos = kept.get(ch) ?? new Map<string, Closed>();
  kept.set(ch, memos);
  const memo = memos.get(key);
  const hasClosed = firstDay < today;
  const closed = hasClosed ? closedDays(firstDay, today - 1) : null;
  // the candidates: the first CANDIDATES coins shown (hidden ones are not) by their closed days
  const hiddenSet = new Set(hidden);
  const ranked = shownFirst(memo?.ranked ?? [], hiddenSet);
  const candidates = ranked.slice(0, CANDIDATES).map((e) => e.mint);
  // a coin outside them gains today at most ⌈fees today × the greatest pct / 100⌉ + one per config (⌊(a + b)·p/100⌋ ≤ ⌊a·p/100⌋ +
  // ⌈b·p/100⌉; a sum of ceilings exceeds the ceiling of the sum by less than one per term), so with `beyond` closed-day lamports at
  // most it must gain at least tenth − beyond, and some, to pass the tenth (ten candidates have at least the tenth's closed-day
  // lamports, and lamports only grow): only coins whose fees today reach `least` are read. When the tenth has 0 lamports (a config
  // giving creators nothing), a coin without closed-day fees ties with it and ranks by its mint: those before the tenth's are read.
  const tenth = ranked.length >= TOP_EARNERS ? ranked[TOP_EARNERS - 1]! : null;
  const beyond = ranked[CANDIDATES]?.lamports ?? 0n;
  const pmax = BigInt(Math.max(0, ...cfg.pcts));
  const need = tenth === null ? 0n : tenth.lamports > beyond + 1n ? tenth.lamports - beyond : 1n;
  const least = tenth === null ? "0" : pmax === 0n ? null : String(need - BigInt(cfg.sol.length) <= 0n ? 0n : ((need - BigInt(cfg.sol.length)) * 100n + pmax - 1n) / pmax);
  const below = tenth !== null && tenth.lamports === 0n ? tenth.mint : "";
  const params = { first_day: firstDay, sol: cfg.sol, today, least: least ?? "0", candidates, below };
  // When the day so far is quiet (all of today's fees × the greatest pct / 100 + one per config ≤ need: no coin's gain can reach
  // it), only the candidates' rows of today are read, by key (and those before `below`): `light`, the day's total tells (read
  // with them, the same rows' snapshot). Otherwise (or once the day's total said so: it only grows), every coin of today is read
  // and grouped, keeping those whose fees reach `least`.
  const light = memo !== undefined && tenth !== null && !memo.busy;
  // one part: today's rows (level 0, today and later) of the coins that may reach the top, as stored (a coin's rows of a config are
  // summed here; other configs' only widen the bound and are left out here), and the days' totals from the window's first day on,
  // every config's (level DAY_TOTALS, ClickHouse migration 0018: mint ''): the closed days' check the kept sums, today's the
  // bound (a filter by config would cost more than the few rows it leaves out; a fee of another config only groups the days
  // again): [mint, [config, fee, of a closed day][]][]
  const parts = {
    earners: cfg.sol.length
      ? `SELECT groupArray((mint, fees)) AS x FROM (
           SELECT mint, groupArray((config, trading_fee, start < toDate({today:UInt16}))) AS fees FROM coin_fees_span
           WHERE (level = 0 AND ${
             light
               ? "((start = toDate({today:UInt16}) AND (mint IN {candidates:Array(String)} OR mint < {below:String})) OR start > toDate({today:UInt16}))"
               : "start >= toDate({today:UInt16})"
           }) OR (level = ${DAY_TOTALS} AND start >= toDate({first_day:UInt16}))
           GROUP BY mint${
             light ? "" : ` HAVING mint = '' OR ${least === null ? "" : "sum(trading_fee) >= toUInt128({least:String}) OR "}mint IN {candidates:Array(String)} OR mint < {below:String}`
           })`
      : null,
  };

  type Answers = { earners?: [string, [string, string, number][]][] };
  async function finish(a: Answers): Promise<{ mint: string; lamports: string }[]> {
    if (!cfg.sol.length) return [];
    let sums = memo;
    let todays = (a.earners ?? []).filter(([mint]) => mint !== "");
    let [total, day] = [0n, 0n];
    for (const [, fee, closed] of (a.earners ?? []).find(([mint]) => mint === "")?.[1] ?? []) closed ? (total += BigInt(fee)) : (day += BigInt(fee));
    if (!sums || sums.total !== total) {
      // the first read of these days, or a trade landed on one of them since: group them again. The total read before the
      // grouping is kept with it: a trade stored in between is in the sums and not in the total, so the next read groups again.
      sums = { total, busy: false, ...(hasClosed ? await groupClosed(ch, closed!, pct) : { fees: new Map(), ranked: [] }) };
      for (const k of memos.keys()) if (k.split(":")[1] !== String(today)) memos.delete(k); // days gone by
      memos.set(key, sums);
      // today's rows were picked by other sums' candidates (without sums, every coin's were read)
      if (memo) todays = await everyCoinToday();
    } else if (light && pmax > 0n && day * pmax > (need - BigInt(cfg.sol.length)) * 100n) {
      // the day is no longer quiet: every coin of today, from now on
      sums.busy = true;
      todays = await everyCoinToday();
    }
    // the candidates (those of the plan when its sums still hold) and the coins read today, merged
    const merged = new Map<string, Map<string, bigint>>();
    for (const e of shownFirst(sums.ranked, hiddenSet).slice(0, CANDIDATES)) merged.set(e.mint, new Map(sums.fees.get(e.mint)));
    for (const [mint, fees] of todays) {
      if (hiddenSet.has(mint)) continue;
      const m = merged.get(mint) ?? new Map(sums.fees.get(mint));
      for (const [config, fee] of fees) if (pct.has(config)) m.set(config, (m.get(config) ?? 0n) + BigInt(fee));
      merged.set(mint, m);
    }
    const out: { mint: string; lamports: bigint }[] = [];
    for (const [mint, fees] of merged) {
      let total = 0n;
      for (const f of fees.values()) total += f;
      if (total > 0n) out.push({ mint, lamports: lamportsOf(fees, pct) });
    }
    return out
      .sort(byLamports)
      .slice(0, TOP_EARNERS)
      .map((e) => ({ mint: e.mint, lamports: e.lamports.toString() }));
  }

  /** Today's rows of every coin (after the closed days were grouped again: no candidates known before). */
  async function everyCoinToday() {
    const rows = await ch.query<{ mint: string; config: string; tf: string }>(
      `SELECT mint, config, toString(sum(trading_fee)) AS tf FROM coin_fees_span
       WHERE level = 0 AND start >= toDate({today:UInt16}) AND config IN {sol:Array(String)} GROUP BY mint, config`,
      { today, sol: cfg.sol },
    );
    const byMint = new Map<string, [string, string, number][]>();
    for (const r of rows) byMint.set(r.mint, [...(byMint.get(r.mint) ?? []), [r.config, r.tf, 0]]);
    return [...byMint];
  }
  return { parts, params, finish };
}

/** The closed days' sums per coin and config, grouped once. */
async function groupClosed(ch: ClickHouse, closed: { where: string; params: Record<string, unknown> }, pct: Map<string, bigint>): Promise<Omit<Closed, "total" | "busy">> {
  const rows = await ch.query<{ mint: string; config: string; tf: string }>(
    `SELECT mint, config, toString(sum(trading_fee)) AS tf FROM coin_fees_span WHERE ${closed.where} GROUP BY mint, config`,
    { ...closed.params, sol: [...pct.keys()] },
  );
  const fees = new Map<string, Map<string, bigint>>();
  for (const r of rows) {
    const fee = BigInt(r.tf);
    const m = fees.get(r.mint) ?? new Map<string, bigint>();
    m.set(r.config, fee);
    fees.set(r.mint, m);
  }
  const ranked: Closed["ranked"] = [];
  for (const [mint, m] of fees) {
    let sum = 0n;
    for (const f of m.values()) sum += f;
    if (sum > 0n) ranked.push({ mint, lamports: lamportsOf(m, pct) });
  }
  ranked.sort(byLamports);
  return { fees, ranked };
}
