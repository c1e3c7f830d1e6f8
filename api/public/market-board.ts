/**
 * The market board: every coin's directory and market row, read from ClickHouse
 * at most once per `refreshMs` and kept in memory, so listing, filtering and
 * sorting 10k coins costs microseconds whatever the number of trades. Requests
 * are answered from the last board while the next one loads (stale by at most
 * about `refreshMs` plus one load; the agents list may be cached 5 s anyway).
 */
import type { ClickHouse } from "../../infra/clickhouse";
import { readMarketRows, type BoardCache, type MarketRow } from "./market-sql";

export type MarketBoard = { rows(): Promise<MarketRow[]>; get(mint: string): Promise<MarketRow | undefined> };

export function createMarketBoard(ch: ClickHouse, refreshMs = 1000, now = () => Date.now()): MarketBoard {
  let board: { at: number; rows: MarketRow[] } | null = null;
  let loading: Promise<MarketRow[]> | null = null;
  const cache: BoardCache = { current: null };

  const load = () => {
    // always fresh (0): the day-ago prices are read at every load; what the cache keeps of the other tables is exact
    if (refreshMs === 0 && !loading) cache.current = null;
    return (loading ??= readMarketRows(ch, null, Math.floor(now() / 1000), cache)
      .then((rows) => {
        board = { at: now(), rows };
        return rows;
      })
      .finally(() => (loading = null)));
  };

  let byMint: { rows: MarketRow[]; map: Map<string, MarketRow> } | null = null;
  const rows = async () => {
    if (!board || refreshMs === 0) return load();
    if (now() - board.at >= refreshMs) void load().catch(() => {}); // refresh in the background
    return board.rows;
  };
  return {
    rows,
    async get(mint) {
      const current = await rows();
      if (byMint?.rows !== current) byMint = { rows: current, map: new Map(current.map((r) => [r.mint, r])) };
      return byMint.map.get(mint);
    },
  };
}
