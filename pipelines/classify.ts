/**
 * Pure step: which decoded facts are platform facts. Accepted facts are stored,
 * facts that wait for a pool or coin not yet known are parked (kept, replayed
 * later), the rest are not the platform's and are dropped with a count. The platform
 * token's burns and balances are accepted too; balances of other tokens are ignored
 * without a count (see the token_balance case). SOL transfers and balances are not
 * classified: the treasury's flows are read from whole transactions (treasury.ts).
 */
import type { Fact } from "../ingest/contract/facts";
import { isNeverHolder } from "../ingest/contract/fact-scope";
import type { PoolEntry, PoolRegistry } from "./platform/registry";

export type Parked = { fact: Fact; waitsFor: string };
/**
 * `foreign`: pools and coins this batch shows are not the platform's (created on, or
 * migrated from, another config): facts parked for them can never be replayed.
 */
export type Classified = { accepted: Fact[]; parked: Parked[]; dropped: number; newPools: PoolEntry[]; foreign: string[] };

export function factKey(f: { signature: string; ix: number; inner: number }): string {
  return `${f.signature}:${f.ix}:${f.inner}`;
}

export function classify(facts: readonly Fact[], registry: PoolRegistry): Classified {
  const out: Classified = { accepted: [], parked: [], dropped: 0, newPools: [], foreign: [] };
  const foreign = new Set<string>();
  const overlay = new Map<string, PoolEntry>();
  const poolOf = (address: string) => overlay.get(address) ?? registry.pool(address);
  const isPlatformToken = (mint: string) => registry.platformTokenMint !== null && mint === registry.platformTokenMint;

  // Pools first, so a batch that creates a pool and trades on it is accepted whole.
  for (const f of facts) {
    if (f.kind === "pool_created" || f.kind === "migration" || f.kind === "curve_complete") {
      if (!registry.isPlatformConfig(f.config)) {
        foreign.add(f.pool).add(f.mint);
        if (f.kind === "migration") foreign.add(f.dammPool);
        continue;
      }
      if (f.kind === "curve_complete") continue;
      const entry: PoolEntry =
        f.kind === "pool_created"
          ? { address: f.pool, mint: f.mint, venue: "dbc", config: f.config }
          : { address: f.dammPool, mint: f.mint, venue: "damm_v2", config: f.config };
      if (!poolOf(entry.address)) out.newPools.push(entry);
      overlay.set(entry.address, entry);
      if (f.kind === "migration" && !poolOf(f.pool)) {
        // a migration seen before its pool's creation still proves the DBC pool is the platform's
        const dbc: PoolEntry = { address: f.pool, mint: f.mint, venue: "dbc", config: f.config };
        out.newPools.push(dbc);
        overlay.set(dbc.address, dbc);
      }
    }
  }

  // coins the registry knows, and those created in this batch
  const batchMints = new Set([...overlay.values()].map((p) => p.mint));
  const isPlatformCoin = (mint: string) => batchMints.has(mint) || registry.configOfMint(mint) !== undefined;

  const park = (fact: Fact, waitsFor: string) => {
    if (foreign.has(waitsFor)) out.dropped++;
    else out.parked.push({ fact, waitsFor });
  };
  for (const f of facts) {
    switch (f.kind) {
      case "pool_created":
      case "migration":
      case "curve_complete":
        if (registry.isPlatformConfig(f.config)) out.accepted.push(f);
        else out.dropped++;
        break;
      case "trade":
        if (f.venue === "dbc") {
          if (registry.isPlatformConfig(f.config)) out.accepted.push(f);
          else out.dropped++;
        } else {
          const pool = poolOf(f.pool);
          if (pool) out.accepted.push({ ...f, mint: pool.mint, config: pool.config });
          else park(f, f.pool);
        }
        break;
      case "fee_claim":
      case "surplus_withdrawal": {
        const pool = poolOf(f.pool);
        if (pool) out.accepted.push({ ...f, mint: pool.mint });
        else park(f, f.pool);
        break;
      }
      case "burn":
        if (isPlatformCoin(f.mint) || isPlatformToken(f.mint)) out.accepted.push(f);
        else park(f, f.mint);
        break;
      case "token_balance":
        // Holder counts want the platform coins' balances, tokenomics the platform token's
        // (the treasury's buybacks among them). Every transaction moves other tokens too
        // (wSOL, the quote vaults', foreign coins'): they are not the platform's facts, yet
        // not a loss either, so they are neither parked nor counted as dropped. Nor are the
        // balances of owners that are never holders (the pools' own vaults, the incinerator):
        // no count reads them. A coin's balance moved before its creation reached us is
        // healed by the holder reconciliation (pipelines/holders/).
        if ((isPlatformCoin(f.mint) || isPlatformToken(f.mint)) && !isNeverHolder(f.owner)) out.accepted.push(f);
        break;
    }
  }
  out.foreign = [...foreign];
  return out;
}

/** JSON.stringify's replacer for facts: a bigint as `{"$bigint": "<decimal>"}` (parked facts, Kafka dead letters' readable form). */
export const bigintReplacer = (_k: string, v: unknown) => (typeof v === "bigint" ? { $bigint: v.toString() } : v);

/** JSON that keeps bigint exact (for parked facts). */
export function factToJson(f: Fact): unknown {
  return JSON.parse(JSON.stringify(f, bigintReplacer));
}

export function factFromJson(json: unknown): Fact {
  return JSON.parse(JSON.stringify(json), (_k, v) => (v && typeof v === "object" && "$bigint" in v ? BigInt(v.$bigint) : v));
}
