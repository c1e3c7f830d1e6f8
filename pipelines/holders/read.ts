/**
 * The read side of holder counts, for the Application API and analytics: the newest count of
 * each coin (argMax on counted_at, so an unmerged older count never shows).
 */
import type { ClickHouse } from "../../infra/clickhouse";

export type HolderCounts = {
  /** holders per coin; a coin not counted yet is absent (readers show 0) */
  byMint: Map<string, number>;
  /**
   * The sum of the coins' holders: a wallet holding two coins counts twice (a count of
   * distinct wallets across coins would need every owner's balances at read time).
   */
  total: number;
};

/**
 * Counts for `mints`, or, without them, for every platform coin (a mint whose pool creation
 * is stored: other tokens whose balances may be stored, such as the platform token, are not
 * coins and stay out of the total).
 */
export async function holderCounts(ch: ClickHouse, mints?: readonly string[]): Promise<HolderCounts> {
  const filter = mints ? "mint IN {mints:Array(String)}" : "mint IN (SELECT mint FROM pool_events WHERE kind = 'pool_created')";
  if (mints && mints.length === 0) return { byMint: new Map(), total: 0 };
  const rows = await ch.query<{ mint: string; holders: string }>(
    `SELECT mint, toString(argMax(holders, counted_at)) AS holders FROM holder_counts WHERE ${filter} GROUP BY mint`,
    mints ? { mints: [...mints] } : {},
  );
  const byMint = new Map(rows.map((r) => [r.mint, Number(r.holders)]));
  let total = 0;
  for (const n of byMint.values()) total += n;
  return { byMint, total };
}
