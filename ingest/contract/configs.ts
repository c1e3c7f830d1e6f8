/**
 * The platform's DBC configs: which addresses they are (PLATFORM_CONFIGS) and what
 * their on-chain PoolConfig accounts say, decoded with the DBC IDL. Everything the
 * configs list and the market math (market-math.ts) need is derived here once.
 */
import type { PlatformConfigEntry } from "../../infra/config";

export const WSOL_MINT = "So11111111111111111111111111111111111111112";
const MIGRATION_FEE_BPS = [25, 30, 100, 200, 400, 600];

export type QuoteInfo = { kind: "sol" | "stock"; mint: string; symbol: string; decimals: number; ticker: string | null };

export type PlatformConfig = {
  address: string;
  role: "launch" | "stock" | "legacy";
  acceptsLaunches: boolean;
  quote: QuoteInfo;
  feeBps: number;
  dynamicFee: boolean;
  creatorPct: number;
  tokenDecimals: number;
  tokenProgram: "spl-token" | "token-2022";
  /** total supply after migration, in atoms */
  supplyAtoms: bigint;
  sqrtStartPrice: bigint;
  migrationSqrtPrice: bigint;
  migrationQuoteThreshold: bigint;
  migratedPoolFeeBps: number;
  lockedLiquidityPct: number;
  feeClaimer: string;
};

type Bnish = { toString(base?: number): string };
type PubkeyLike = { toBase58(): string };
const big = (x: Bnish) => BigInt(x.toString(10));

/** The fields of an anchor-decoded PoolConfig that the platform reads. */
export type DecodedPoolConfig = {
  quote_mint: PubkeyLike;
  fee_claimer: PubkeyLike;
  pool_fees: { base_fee: { cliff_fee_numerator: Bnish }; dynamic_fee: { initialized: number } };
  creator_trading_fee_percentage: number;
  token_decimal: number;
  token_type: number;
  post_migration_token_supply: Bnish;
  sqrt_start_price: Bnish;
  migration_sqrt_price: Bnish;
  migration_quote_threshold: Bnish;
  migration_fee_option: number;
  migrated_pool_fee_bps: number;
  partner_permanent_locked_liquidity_percentage: number;
  creator_permanent_locked_liquidity_percentage: number;
};

export function toPlatformConfig(entry: PlatformConfigEntry, pc: DecodedPoolConfig, quoteDecimals: number): PlatformConfig {
  const quoteMint = pc.quote_mint.toBase58();
  const isSol = quoteMint === WSOL_MINT;
  const option = pc.migration_fee_option;
  return {
    address: entry.address,
    role: entry.role,
    acceptsLaunches: entry.role !== "legacy",
    quote: isSol
      ? { kind: "sol", mint: WSOL_MINT, symbol: "SOL", decimals: 9, ticker: null }
      : { kind: "stock", mint: quoteMint, symbol: entry.ticker ? `${entry.ticker}x` : "", decimals: quoteDecimals, ticker: entry.ticker },
    // cliff fee numerator is over 1e9; 1 bps = 1e5
    feeBps: Number(big(pc.pool_fees.base_fee.cliff_fee_numerator) / 100_000n),
    dynamicFee: pc.pool_fees.dynamic_fee.initialized !== 0,
    creatorPct: pc.creator_trading_fee_percentage,
    tokenDecimals: pc.token_decimal,
    tokenProgram: pc.token_type === 1 ? "token-2022" : "spl-token",
    supplyAtoms: big(pc.post_migration_token_supply),
    sqrtStartPrice: big(pc.sqrt_start_price),
    migrationSqrtPrice: big(pc.migration_sqrt_price),
    migrationQuoteThreshold: big(pc.migration_quote_threshold),
    migratedPoolFeeBps: option < MIGRATION_FEE_BPS.length ? MIGRATION_FEE_BPS[option]! : pc.migrated_pool_fee_bps,
    lockedLiquidityPct: pc.partner_permanent_locked_liquidity_percentage + pc.creator_permanent_locked_liquidity_percentage,
    feeClaimer: pc.fee_claimer.toBase58(),
  };
}

export type ConfigRegistry = {
  all: readonly PlatformConfig[];
  byAddress: ReadonlyMap<string, PlatformConfig>;
  launch: PlatformConfig | null;
};

/** Order: the launch config first, then stock-paired, then legacy (the spec's order for the configs list). */
export function configRegistry(configs: PlatformConfig[]): ConfigRegistry {
  const rank = { launch: 0, stock: 1, legacy: 2 } as const;
  const all = [...configs].sort((a, b) => rank[a.role] - rank[b.role]);
  return { all, byAddress: new Map(all.map((c) => [c.address, c])), launch: all.find((c) => c.role === "launch") ?? null };
}

/**
 * The platform treasury: TREASURY_ADDRESS and the fee claimer of every platform config
 * (where the partner's share of trading fees is claimed to); sorted, unique.
 */
export function treasuryAddresses(configs: ConfigRegistry, treasuryAddress: string | null): string[] {
  const all = new Set(configs.all.map((c) => c.feeClaimer));
  if (treasuryAddress) all.add(treasuryAddress);
  return [...all].sort();
}
