/**
 * Which balance facts the pipelines can use, so decoding leaves the rest out. A transaction
 * moves many token accounts and SOL balances (the trader's wSOL, the pools' vaults, other
 * tokens of a routed swap, every signer's SOL); decoding all of them made ingest several times
 * slower (issue 11). The pipelines read only:
 * - token balances of the platform coins and the platform token, except those of owners that
 *   are never holders (the pools' vaults, the incinerator): holder counts (pipelines/holders/);
 * - the treasury's own: its token balances of any mint (a buyback's wSOL and platform token,
 *   the accounts it wraps SOL into), its SOL change when it pays the fee, and System transfers
 *   out of it (pipelines/treasury.ts).
 *
 * A scope only ever drops facts the pipelines would ignore: they still classify whatever
 * arrives, so decoding without a scope (backfill, reconciliation, the scaled mode's stateless
 * ingest process) stores the same rows, only slower.
 */
import type { Fact } from "./facts";
import { NEVER_HOLDERS } from "./never-holders";

export type FactScope = {
  /** TREASURY_ADDRESS and every config's fee claimer */
  treasury: ReadonlySet<string>;
  platformTokenMint: string | null;
  /** the platform configs: a DBC fact on one of them names a platform coin, even one `coins` has not learned yet */
  platformConfigs: ReadonlySet<string>;
  /**
   * The platform coins known so far (grows as pools appear: `learnCoins`). Null when the
   * decoding side cannot know them: then any mint but the configs' quote mints may be a coin.
   */
  coins: Set<string> | null;
  /** the configs' quote mints (wSOL, stock tokens): never a platform coin */
  quoteMints: ReadonlySet<string>;
};

const NEVER_HOLDER_SET: ReadonlySet<string> = new Set(NEVER_HOLDERS);

/** The owner's balances never count as a holder's (pool vaults, the incinerator). */
export function isNeverHolder(owner: string): boolean {
  return NEVER_HOLDER_SET.has(owner);
}

/**
 * The platform coins a transaction's own facts prove (a DBC pool created, traded, completed or
 * migrated on a platform config), so a coin's first transactions keep their balances even
 * before the scope has learned the coin.
 */
export function coinsNamedBy(facts: readonly Fact[], scope: FactScope): Set<string> {
  const coins = new Set<string>();
  for (const f of facts)
    if ((f.kind === "pool_created" || f.kind === "trade" || f.kind === "curve_complete" || f.kind === "migration") && scope.platformConfigs.has(f.config))
      coins.add(f.mint);
  return coins;
}

/** Whether a token balance change of `owner`'s account of `mint` may matter to the pipelines. */
export function keepsTokenBalance(scope: FactScope, mint: string, owner: string, txCoins: ReadonlySet<string>): boolean {
  if (scope.treasury.has(owner)) return true;
  if (NEVER_HOLDER_SET.has(owner)) return false;
  if (mint === scope.platformTokenMint || txCoins.has(mint)) return true;
  return scope.coins ? scope.coins.has(mint) : !scope.quoteMints.has(mint);
}

/** Adds the coins these facts prove to the scope; returns those it did not know. */
export function learnCoins(scope: FactScope, facts: readonly Fact[]): string[] {
  if (!scope.coins) return [];
  const learned: string[] = [];
  for (const mint of coinsNamedBy(facts, scope))
    if (!scope.coins.has(mint)) {
      scope.coins.add(mint);
      learned.push(mint);
    }
  return learned;
}
