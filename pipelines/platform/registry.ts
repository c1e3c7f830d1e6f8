/**
 * Which pools and coins belong to the platform. A DBC pool is a platform pool when
 * its config is a platform config; a DAMM v2 pool is one when a platform DBC pool
 * migrated into it. Kept in Postgres (platform_pools), mirrored in memory. It also
 * names the treasury's addresses and the platform token, whose flows the pipeline
 * follows too.
 */
import type { Sql } from "../../infra/postgres";
import { treasuryAddresses, WSOL_MINT, type ConfigRegistry, type PlatformConfig } from "../../ingest/contract/configs";
import type { FactScope } from "../../ingest/contract/fact-scope";

export type PoolEntry = { address: string; mint: string; venue: "dbc" | "damm_v2"; config: string };

/** TREASURY_ADDRESS and PLATFORM_TOKEN_MINT (infra/config.ts); both may be unset. */
export type TreasuryConfig = { treasuryAddress: string | null; platformTokenMint: string | null };

export class PoolRegistry {
  private pools = new Map<string, PoolEntry>();
  private mints = new Map<string, PoolEntry>();
  private newPoolListeners: ((entry: PoolEntry) => void)[] = [];

  /** TREASURY_ADDRESS and every config's fee claimer */
  readonly treasury: ReadonlySet<string>;
  readonly platformTokenMint: string | null;

  constructor(
    readonly configs: ConfigRegistry,
    treasury: TreasuryConfig = { treasuryAddress: null, platformTokenMint: null },
  ) {
    this.treasury = new Set(treasuryAddresses(configs, treasury.treasuryAddress));
    this.platformTokenMint = treasury.platformTokenMint;
  }

  static async load(sql: Sql, configs: ConfigRegistry, treasury?: TreasuryConfig): Promise<PoolRegistry> {
    const r = new PoolRegistry(configs, treasury);
    const rows = await sql<PoolEntry[]>`SELECT address, mint, venue, config FROM platform_pools`;
    for (const row of rows) r.remember(row);
    return r;
  }

  /** `fn` hears of each pool remembered for the first time from now on (e.g. to resync the Helius webhook's addresses); it must not throw */
  onNewPool(fn: (entry: PoolEntry) => void): void {
    this.newPoolListeners.push(fn);
  }

  remember(entry: PoolEntry): void {
    const isNew = !this.pools.has(entry.address);
    this.pools.set(entry.address, entry);
    if (entry.venue === "dbc" || !this.mints.has(entry.mint)) this.mints.set(entry.mint, entry);
    if (isNew) for (const fn of this.newPoolListeners) fn(entry);
  }

  pool(address: string): PoolEntry | undefined {
    return this.pools.get(address);
  }

  /** the platform config of a coin, if the coin is a platform coin */
  configOfMint(mint: string): PlatformConfig | undefined {
    const entry = this.mints.get(mint);
    return entry ? this.configs.byAddress.get(entry.config) : undefined;
  }

  isPlatformConfig(address: string): boolean {
    return this.configs.byAddress.has(address);
  }

  /** What decoding may leave out (ingest/contract/fact-scope.ts), as of now: keep its coins in step with `onNewPool`. */
  factScope(): FactScope {
    return {
      treasury: this.treasury,
      platformTokenMint: this.platformTokenMint,
      platformConfigs: new Set(this.configs.byAddress.keys()),
      coins: new Set(this.mints.keys()),
      quoteMints: new Set([WSOL_MINT, ...this.configs.all.map((c) => c.quote.mint)]),
    };
  }
}

export async function persistPools(sql: Sql, entries: PoolEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await sql`INSERT INTO platform_pools ${sql(entries, "address", "mint", "venue", "config")} ON CONFLICT (address) DO NOTHING`;
}
