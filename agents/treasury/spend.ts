/**
 * What a vault may spend on treasury actions: its claimed fees, less what actions have
 * reserved or spent (the `vault_spend` ledger).
 *
 * A vault's claimed fees (lamports, all time, from the stored chain facts in ClickHouse):
 * - the SOL side of the fee claims the vault made on its own coin (`fee_claims`, claimer =
 *   the vault, role `creator` on the DBC pool or `position` on the DAMM v2 pool; SOL-quoted
 *   coins only: a stock-paired coin's claims are in stock atoms), plus
 * - the SOL the platform treasury sent to the vault (`treasury_flows` transfers, the vaults'
 *   share of the platform's fees).
 * Each fact is counted once (`LIMIT 1 BY` its key) even before ClickHouse merges duplicates.
 *
 * Limits are checked and the spend reserved in ONE Postgres transaction, under a
 * transaction-level advisory lock per vault, so two actions never both take the same room.
 * The claimed figure is read from ClickHouse just before (facts only ever add to it, so a
 * figure read a moment earlier is never more than the true one).
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { Sql } from "../../infra/postgres";
import { LOCKS } from "../../infra/advisory-lock";

export type ClaimedFees = { feeClaimsLamports: bigint; treasuryPayoutsLamports: bigint; totalLamports: bigint };

/** `solQuoted`: whether the coin trades against SOL (its fee claims' quote side is lamports). */
export async function claimedFeesOf(ch: ClickHouse, o: { mint: string; vault: string; solQuoted: boolean }): Promise<ClaimedFees> {
  const [r] = await ch.query<{ claims: string; payouts: string }>(
    `SELECT
       (SELECT toString(sum(quote_amount)) FROM (
          SELECT quote_amount FROM fee_claims
          WHERE mint = {mint:String} AND claimer = {vault:String} AND role IN ('creator', 'position') AND {sol:UInt8} = 1
          LIMIT 1 BY slot, signature, ix, inner)) AS claims,
       (SELECT toString(sum(lamports)) FROM (
          SELECT lamports FROM treasury_flows WHERE kind = 'transfer' AND recipient = {vault:String}
          LIMIT 1 BY at, slot, signature, ix, inner)) AS payouts`,
    { mint: o.mint, vault: o.vault, sol: o.solQuoted ? 1 : 0 },
  );
  const feeClaimsLamports = BigInt(r?.claims || 0);
  const treasuryPayoutsLamports = BigInt(r?.payouts || 0);
  return { feeClaimsLamports, treasuryPayoutsLamports, totalLamports: feeClaimsLamports + treasuryPayoutsLamports };
}

/** What actions hold of a vault: reserved (not yet settled) plus spent. */
export async function committedOf(tx: Sql, vault: string): Promise<bigint> {
  const [r] = await tx<{ committed: string }[]>`
    SELECT COALESCE(sum(CASE WHEN status = 'reserved' THEN reserved_lamports ELSE spent_lamports END), 0)::text AS committed
    FROM vault_spend WHERE vault = ${vault}`;
  return BigInt(r!.committed);
}

export type SpendRequest = {
  mint: string;
  vault: string;
  ownerKind: string;
  ownerId: string;
  lamports: bigint;
  /** the vault's claimed fees (claimedFeesOf(...).totalLamports), read before the transaction */
  claimedLamports: bigint;
};
export type Reservation =
  | { ok: true; id: bigint; availableBefore: bigint }
  | { ok: false; claimedLamports: bigint; committedLamports: bigint; availableLamports: bigint };

/** Takes the vault's lock for the rest of `tx` (every spend check of that vault waits for it). */
export async function lockVault(tx: Sql, vault: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${LOCKS.vaultSpend}, hashtext(${vault}))`;
}

/**
 * Inside the caller's transaction: checks that `lamports` fits in the vault's room (claimed -
 * committed) and reserves it for (ownerKind, ownerId). Refused: nothing written, the figures
 * returned for the error. The caller writes its own record in the same transaction.
 */
export async function reserveVaultSpend(tx: Sql, r: SpendRequest): Promise<Reservation> {
  await lockVault(tx, r.vault);
  const committed = await committedOf(tx, r.vault);
  const available = r.claimedLamports - committed;
  if (r.lamports > available)
    return { ok: false, claimedLamports: r.claimedLamports, committedLamports: committed, availableLamports: available < 0n ? 0n : available };
  const [row] = await tx<{ id: bigint }[]>`
    INSERT INTO vault_spend (mint, vault, owner_kind, owner_id, reserved_lamports)
    VALUES (${r.mint}, ${r.vault}, ${r.ownerKind}, ${r.ownerId}, ${r.lamports.toString()})
    RETURNING id`;
  return { ok: true, id: row!.id, availableBefore: available };
}

/** Settles an owner's reservation to what it paid (status settled; 0 paid = released). Idempotent. */
export async function settleVaultSpend(tx: Sql, ownerKind: string, ownerId: string, spentLamports: bigint): Promise<void> {
  await tx`
    UPDATE vault_spend SET status = ${spentLamports === 0n ? "released" : "settled"}, spent_lamports = ${spentLamports.toString()}, settled_at = now()
    WHERE owner_kind = ${ownerKind} AND owner_id = ${ownerId} AND status = 'reserved'`;
}

/** Releases an owner's reservation (nothing was or will be paid: a cancelled contest). */
export const releaseVaultSpend = (tx: Sql, ownerKind: string, ownerId: string) => settleVaultSpend(tx, ownerKind, ownerId, 0n);

/** The vault's room now: claimed, committed and what is left (for previews and errors). */
export async function vaultRoom(sql: Sql, claimedLamports: bigint, vault: string) {
  const committed = await committedOf(sql, vault);
  const available = claimedLamports - committed;
  return { claimedLamports, committedLamports: committed, availableLamports: available < 0n ? 0n : available };
}
