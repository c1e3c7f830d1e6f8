/**
 * Holder counts from `token_balances` (sql/clickhouse/0009_holders.sql) into `holder_counts`.
 *
 * An account's balance is its latest snapshot (the RPC's answer at a context slot, or none)
 * plus the 'tx' deltas of later slots; an account below zero (deltas whose earlier credit was
 * never seen) counts as empty. An owner's balance is the sum over its accounts; a holder is
 * an owner with a positive balance that is not in NEVER_HOLDERS. A transaction's own delta
 * and the snapshot that already includes it never add up, whichever is stored first.
 */
import { stringListLiteral, type ClickHouse } from "../../infra/clickhouse";
import { NEVER_HOLDERS } from "../../ingest/contract/never-holders";

/** Mints per query. */
export const MINTS_PER_QUERY = 1000;

/**
 * Per account of `mints`: its owner (the newest one named), balance (latest snapshot + the
 * 'tx' deltas of later slots), decimals and newest slot. One pass grouped by account, no
 * FINAL: 'tx' rows are exactly-once (the sink's gate), and a snapshot read twice at one slot
 * is the same amount, which argMax takes once. The mints are literals, not parameters, so a
 * long read never holds up the parameterized ones (infra/clickhouse stringListLiteral).
 */
export const accountBalances = (mints: readonly string[]) => `
  SELECT mint, account, owner,
         snapshot_amount + arraySum(arrayMap(t -> if(t.1 > snapshot_slot, t.2, toInt128(0)), deltas)) AS balance,
         decimals, last_slot
  FROM (
    SELECT mint, account, argMaxIf(owner, slot, owner != '') AS owner,
           maxIf(slot, kind = 'snapshot') AS snapshot_slot,
           argMaxIf(amount, slot, kind = 'snapshot') AS snapshot_amount,
           groupArrayIf((slot, amount), kind = 'tx') AS deltas,
           max(decimals) AS decimals, max(slot) AS last_slot
    FROM token_balances
    WHERE mint IN ${stringListLiteral(mints)}
    GROUP BY mint, account
  )`;

/** Per mint: the owners with a positive balance, and the newest slot the count includes. */
const countSelect = (mints: readonly string[]) => `
  SELECT mint, countIf(balance > 0 AND owner NOT IN ${stringListLiteral(NEVER_HOLDERS)}) AS holders, max(last_slot) AS slot
  FROM (
    SELECT mint, owner, sum(greatest(balance, toInt128(0))) AS balance, max(last_slot) AS last_slot
    FROM (${accountBalances(mints)})
    GROUP BY mint, owner
  )
  GROUP BY mint`;

/** Recounts these mints: one INSERT … SELECT per MINTS_PER_QUERY mints. A mint without balances gets no row. */
export async function recountHolders(ch: ClickHouse, mints: readonly string[]): Promise<void> {
  const unique = [...new Set(mints)];
  for (let i = 0; i < unique.length; i += MINTS_PER_QUERY)
    await ch.command(
      `INSERT INTO holder_counts (mint, holders, slot, counted_at)
       SELECT mint, holders, slot, now64(3) FROM (${countSelect(unique.slice(i, i + MINTS_PER_QUERY))})`,
    );
}

/** Coins with balances but no count yet (a process stopped between a write and its count). */
export async function uncountedMints(ch: ClickHouse): Promise<string[]> {
  const rows = await ch.query<{ mint: string }>("SELECT DISTINCT mint FROM token_balances WHERE mint NOT IN (SELECT mint FROM holder_counts)");
  return rows.map((r) => r.mint);
}
