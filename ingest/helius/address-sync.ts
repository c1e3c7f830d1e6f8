/**
 * Keeps the Helius webhook's address list equal to what the platform must hear about,
 * so a graduated coin's trades arrive by webhook at once instead of by reconciliation
 * minutes later:
 *   - every platform config (DBC swaps and pool creations name their config),
 *   - every DAMM v2 pool a platform coin graduated to (its swaps name only the pool),
 *   - the treasury: TREASURY_ADDRESS when set, and every config's fee claimer (its fee
 *     claims, payouts, buybacks and burns may name no platform address).
 * The list is owned by the platform: an address on the webhook that is in none of
 * these is removed.
 *
 * A sync reads the webhook, compares, and only when the sets differ PUTs the whole
 * webhook back with the new `accountAddresses` (Helius's PUT replaces every editable
 * field, so the others are sent as they were read). Each PUT costs 100 credits, hence
 * no PUT when nothing changed. Syncs of all processes sharing the Postgres run one at a
 * time (an advisory lock), so an older address set never overwrites a newer one.
 */
import type { Sql } from "../../infra/postgres";
import { LOCKS, whileHoldingLock } from "../../infra/advisory-lock";
import type { HeliusWebhook, WebhookApi } from "./webhook-api";

/** Helius's limit per webhook through the API (helius.dev/docs/faqs/webhooks: "up to 100,000 addresses"). */
export const HELIUS_MAX_ADDRESSES = 100_000;

export type AddressDiff = { added: string[]; removed: string[] };

/** What changes from `current` to `desired`, as sets (order and repeats do not count). */
export function diffAddresses(current: readonly string[], desired: readonly string[]): AddressDiff {
  const have = new Set(current);
  const want = new Set(desired);
  return {
    added: [...want].filter((a) => !have.has(a)).sort(),
    removed: [...have].filter((a) => !want.has(a)).sort(),
  };
}

export type AddressSources = { configs: readonly string[]; treasury: readonly string[] };

/** The address set the webhook should watch: configs, their graduated DAMM v2 pools, the treasury's addresses; sorted, unique. */
export async function desiredAddresses(sql: Sql, o: AddressSources): Promise<string[]> {
  const pools = o.configs.length
    ? await sql<{ address: string }[]>`
        SELECT address FROM platform_pools WHERE venue = 'damm_v2' AND config = ANY(${[...o.configs]}::text[])`
    : [];
  const all = new Set([...o.configs, ...pools.map((p) => p.address)]);
  for (const t of o.treasury) all.add(t);
  return [...all].sort();
}

/** The webhook as PUT expects it: everything read, minus the fields Helius sets itself. */
export function webhookUpdate(current: HeliusWebhook, accountAddresses: string[]): Record<string, unknown> {
  const { webhookID: _id, wallet: _wallet, active: _active, ...editable } = current;
  return { ...editable, accountAddresses };
}

export type SyncDeps = AddressSources & { sql: Sql; api: WebhookApi; webhookId: string };
export type SyncResult = AddressDiff & { webhookId: string; changed: boolean; total: number };

export async function syncWebhookAddresses(deps: SyncDeps): Promise<SyncResult> {
  // An empty config list is a configuration slip, not a wish to stop hearing about every coin.
  if (deps.configs.length === 0) throw new Error("no platform configs (PLATFORM_CONFIGS is empty): refusing to strip the webhook's addresses");
  return whileHoldingLock(deps.sql, LOCKS.heliusAddressSync, async () => {
    const desired = await desiredAddresses(deps.sql, deps);
    if (desired.length > HELIUS_MAX_ADDRESSES)
      throw new Error(
        `the webhook would need ${desired.length} addresses, more than Helius allows on one webhook (${HELIUS_MAX_ADDRESSES}); nothing was changed`,
      );
    const current = await deps.api.get(deps.webhookId);
    const diff = diffAddresses(current.accountAddresses, desired);
    const changed = diff.added.length > 0 || diff.removed.length > 0;
    if (changed) await deps.api.put(deps.webhookId, webhookUpdate(current, desired));
    return { webhookId: deps.webhookId, changed, total: desired.length, ...diff };
  });
}
