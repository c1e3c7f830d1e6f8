/**
 * How actions learn what happened to their batches. Each owner kind (owner_kind of its
 * batches: 'airdrop', 'contest', 'buyback', ...) registers handlers with the executor:
 *
 * - `onSettled(tx, batch)` runs inside the Postgres transaction that moves the batch to
 *   confirmed, failed or expired-for-good: the action's own record changes with it or not at
 *   all (a handler that throws rolls the settlement back; the executor tries again later).
 *   Settlements of one owner are serialized (a transaction lock per owner kind and id), so
 *   the handler of the last batch to settle sees every other batch settled.
 *   Read ownerProgress(tx, ...) there to tell whether every batch of the action is settled,
 *   settle its spend (spend.ts settleVaultSpend), enqueue follow-up batches (a burn after a
 *   swap), and mark the action for publishing. No network calls in there.
 * - `publish()` runs after every executor turn, outside any transaction: write feed items
 *   and activity for what settled (ClickHouse), idempotently (deterministic ids), marking
 *   them published afterwards, so a crash between the two writes them again, never loses them.
 *
 * - `beforeTurn()` runs before every executor turn: work that makes batches (the runtime's
 *   approved proposals of the kind become actions).
 *
 * Batches of a kind with no registered handlers still execute; nobody is told.
 * Without handlers, an owner can poll ownerProgress / batchesOf (batches.ts) instead.
 */
import type { Sql } from "../../infra/postgres";
import type { BatchRow } from "./batches";

export type OwnerHandlers = {
  onSettled?(tx: Sql, batch: BatchRow): Promise<void>;
  publish?(): Promise<void>;
  /** runs before each executor turn (e.g. take the runtime's approved proposals of this kind) */
  beforeTurn?(): Promise<void>;
};
export type OwnerRegistry = ReadonlyMap<string, OwnerHandlers>;

export function ownerRegistry(handlers: Record<string, OwnerHandlers>): OwnerRegistry {
  return new Map(Object.entries(handlers));
}
