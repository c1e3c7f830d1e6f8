/**
 * Several small results in one engine read (the platform-wide reads of app-public/ and the feeds).
 */
import type { ClickHouse } from "../../infra/clickhouse";

/**
 * Settings of the platform-wide reads: each reads a few small tables, where one thread
 * avoids the hand-offs between threads (fewer slow answers on a busy machine, measured).
 */
export const SMALL_READ = "SETTINGS max_threads = 1";

/**
 * Several small results in one read: each part a SELECT of one row with one column `x` (an
 * aggregate without GROUP BY), all joined by UNION ALL, each value as JSON (tuples as
 * arrays; 64- and 128-bit integers and dates as strings, so parts need no toString). One UNION ALL costs the engine less than as many scalar subqueries of one SELECT
 * (the overview's five: 12.5 against 15.5 ms, bench/README.md 2026-11-27 06:00–07:30), and
 * one read less than several (chDB runs parameterized reads one at a time: each waits its turn).
 */
export async function platformParts<T extends Record<string, unknown>>(ch: ClickHouse, parts: { [K in keyof T]-?: string | null }, params: Record<string, unknown>): Promise<T> {
  // a part known without reading (null) is left out, and so is its key: each part costs the read (~0.7 ms, `SELECT []` too)
  const sql = Object.entries(parts as Record<string, string | null>)
    .filter((e): e is [string, string] => e[1] !== null)
    .map(([name, part]) => `SELECT '${name}' AS part, toJSONString(x) AS value FROM (${part})`)
    .join("\nUNION ALL\n");
  const rows = await ch.query<{ part: string; value: string }>(`${sql}\n${SMALL_READ}`, params);
  return Object.fromEntries(rows.map((r) => [r.part, JSON.parse(r.value)])) as T;
}

/** One list of a read (listsRead): the columns of each row's tuple (two at least) and where its rows come from (FROM … ORDER BY … LIMIT …). */
export type ListPart = { columns: string; from: string };

/**
 * Several lists in one read: each part's rows as JSON arrays (toJSONString of a tuple per row: 64-bit integers as
 * strings, so parts need no toString), the parts joined by UNION ALL, in order within each part. A part is one SELECT:
 * the engine plans ~1.4 ms less per part than platformParts' three levels (groupArray in a subquery, then its JSON).
 */
export async function listsRead(ch: ClickHouse, parts: Record<string, ListPart>, params: Record<string, unknown>): Promise<Record<string, unknown[][]>> {
  const sql = Object.entries(parts)
    .map(([name, part]) => `SELECT '${name}' AS part, toJSONString((${part.columns})) AS v ${part.from}`)
    .join("\nUNION ALL\n");
  const out: Record<string, unknown[][]> = Object.fromEntries(Object.keys(parts).map((name) => [name, []]));
  for (const r of await ch.query<{ part: string; v: string }>(`${sql}\n${SMALL_READ}`, params)) out[r.part]!.push(JSON.parse(r.v) as unknown[]);
  return out;
}
