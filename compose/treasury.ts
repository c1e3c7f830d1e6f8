/**
 * The treasury actions' registries, composed in one place: the builders the payment executor
 * may use (agents/treasury/builders.ts) and the owners it tells when batches settle
 * (agents/treasury/owners.ts). Each action adds its line here.
 */
import type { Builder } from "../agents/treasury/builders";
import { builderRegistry } from "../agents/treasury/builders";
import { ownerRegistry, type OwnerHandlers } from "../agents/treasury/owners";
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";

export type TreasuryOwnerDeps = { sql: Sql; ch: ClickHouse; log: Logger };

/** Builders beyond the built-in 'transfers' (buybacks' swaps and burns, fee claims, ...). */
export function treasuryBuilders() {
  const extra: Record<string, Builder> = {};
  return builderRegistry(extra);
}

/** Settlement handlers per owner kind. */
export function treasuryOwners(_deps: TreasuryOwnerDeps) {
  const handlers: Record<string, OwnerHandlers> = {};
  return ownerRegistry(handlers);
}
