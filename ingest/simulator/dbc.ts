/**
 * A DBC virtual pool in motion. Quotes come from the DBC SDK's own math
 * (swapQuoteExactIn / swapQuotePartialFill, which mirror the program's
 * process_swap_exact_in / partial_fill); the state update after a swap mirrors the
 * program's VirtualPool::apply_swap_result (reserves, partner/creator/protocol fees).
 */
import BN from "bn.js";
import {
  swapQuoteExactIn,
  swapQuotePartialFill,
  type PoolConfig,
  type SwapQuote2Result,
  type VirtualPool,
} from "@meteora-ag/dynamic-bonding-curve-sdk";

/** snake_case (as BorshAccountsCoder decodes the raw IDL) to the SDK's camelCase; BN/PublicKey left intact. */
export function toCamelDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toCamelDeep);
  if (v === null || typeof v !== "object" || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = toCamelDeep(x);
  return out;
}

/** The SDK's PoolConfig from an Anchor-decoded one (either casing). */
export function sdkPoolConfig(poolConfig: unknown): PoolConfig {
  const c = toCamelDeep(poolConfig) as PoolConfig;
  if (!c || !BN.isBN(c.migrationQuoteThreshold) || !Array.isArray(c.curve))
    throw new Error("poolConfig: expected an Anchor-decoded DBC PoolConfig");
  return c;
}

// Conversions are on the hot path: go through Number when exact, else hex (never decimal).
// Amounts are never negative.
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
export const big = (b: BN): bigint => (b.bitLength() <= 53 ? BigInt(b.toNumber()) : BigInt("0x" + b.toString(16)));
export const bn = (v: bigint): BN => (v <= SAFE ? new BN(Number(v)) : new BN(v.toString(16), 16));

export type DbcSwap = {
  /** 0 = BaseToQuote (sell), 1 = QuoteToBase (buy) */
  tradeDirection: 0 | 1;
  /** 0 = ExactIn, 1 = PartialFill (used when a buy would overshoot the migration price) */
  swapMode: 0 | 1;
  amount0: bigint;
  /** minimum amount out the trader asked for */
  amount1: bigint;
  result: SwapQuote2Result;
  /** the result's amounts as bigint */
  includedIn: bigint;
  excludedIn: bigint;
  output: bigint;
  tradingFee: bigint;
  protocolFee: bigint;
  referralFee: bigint;
  nextSqrtPrice: bigint;
  /** pool quote reserve after the swap */
  quoteReserve: bigint;
  baseReserve: bigint;
  /** the swap made quote reserve reach the migration threshold */
  completed: boolean;
};

export class DbcCurve {
  readonly config: PoolConfig;
  readonly threshold: bigint;
  /** the threshold as BN, for events */
  readonly thresholdBN: BN;
  private readonly pool: VirtualPool;
  private readonly feesOnBaseForBuy: boolean;
  private readonly creatorPct: bigint;
  sqrtPrice: bigint;
  baseReserve: bigint;
  quoteReserve: bigint;
  partnerBaseFee = 0n;
  partnerQuoteFee = 0n;
  creatorBaseFee = 0n;
  creatorQuoteFee = 0n;
  protocolBaseFee = 0n;
  protocolQuoteFee = 0n;

  constructor(config: PoolConfig, activationPoint: number) {
    this.config = config;
    this.threshold = big(config.migrationQuoteThreshold);
    this.thresholdBN = config.migrationQuoteThreshold;
    this.creatorPct = BigInt(config.creatorTradingFeePercentage);
    // collect_fee_mode 1 (OutputToken): a buy pays its fee in the base token it receives
    this.feesOnBaseForBuy = config.collectFeeMode === 1;
    this.sqrtPrice = big(config.sqrtStartPrice);
    this.baseReserve = initialBaseSupply(config);
    this.quoteReserve = 0n;
    // Only the fields the SDK quote reads. The volatility tracker stays at zero: the
    // simulator does not model the dynamic fee (see README).
    this.pool = {
      poolState: {
        sqrtPrice: config.sqrtStartPrice,
        quoteReserve: new BN(0),
        activationPoint: new BN(activationPoint),
        volatilityTracker: {
          lastUpdateTimestamp: new BN(0),
          sqrtPriceReference: new BN(0),
          volatilityAccumulator: new BN(0),
          volatilityReference: new BN(0),
        },
      },
    } as unknown as VirtualPool;
  }

  get complete(): boolean {
    return this.quoteReserve >= this.threshold;
  }

  /** A buy of `quoteIn` quote atoms; null when the SDK rejects it (nothing changes then). */
  buy(quoteIn: bigint, now: number, firstSwapWithMinFee: boolean): DbcSwap | null {
    if (this.complete || quoteIn <= 0n) return null;
    const eligible = firstSwapWithMinFee && this.config.enableFirstSwapWithMinFee === 1;
    let swapMode: 0 | 1 = 0;
    let result: SwapQuote2Result;
    try {
      result = swapQuoteExactIn(this.pool, this.config, false, bn(quoteIn), 0, false, new BN(now), eligible);
    } catch {
      // past the migration price: the trader sends a partial-fill swap instead
      try {
        result = swapQuotePartialFill(this.pool, this.config, false, bn(quoteIn), 0, false, new BN(now), eligible);
        swapMode = 1;
      } catch {
        return null;
      }
    }
    if (result.outputAmount.isZero()) return null;
    return this.apply(1, swapMode, quoteIn, result);
  }

  /** A sell of `baseIn` base atoms; null when the SDK rejects it. */
  sell(baseIn: bigint, now: number): DbcSwap | null {
    if (this.complete || baseIn <= 0n) return null;
    let result: SwapQuote2Result;
    try {
      result = swapQuoteExactIn(this.pool, this.config, true, bn(baseIn), 0, false, new BN(now), false);
    } catch {
      return null;
    }
    if (result.outputAmount.isZero()) return null;
    return this.apply(0, 0, baseIn, result);
  }

  /** VirtualPool::apply_swap_result of the program. */
  private apply(dir: 0 | 1, swapMode: 0 | 1, amountIn: bigint, r: SwapQuote2Result): DbcSwap {
    const tradingFee = big(r.tradingFee);
    const protocolFee = big(r.protocolFee);
    const referralFee = big(r.referralFee);
    const output = big(r.outputAmount);
    const excludedIn = big(r.excludedFeeInputAmount);
    const feesOnInput = dir === 1 && !this.feesOnBaseForBuy;
    const feesOnBase = dir === 1 && this.feesOnBaseForBuy;
    const creatorFee = this.creatorPct === 0n ? 0n : (tradingFee * this.creatorPct) / 100n;
    const partnerFee = tradingFee - creatorFee;
    if (feesOnBase) {
      this.partnerBaseFee += partnerFee;
      this.creatorBaseFee += creatorFee;
      this.protocolBaseFee += protocolFee;
    } else {
      this.partnerQuoteFee += partnerFee;
      this.creatorQuoteFee += creatorFee;
      this.protocolQuoteFee += protocolFee;
    }
    const grossOut = feesOnInput ? output : output + tradingFee + protocolFee + referralFee;
    if (dir === 1) {
      this.quoteReserve += excludedIn;
      this.baseReserve -= grossOut;
    } else {
      this.baseReserve += excludedIn;
      this.quoteReserve -= grossOut;
    }
    this.sqrtPrice = big(r.nextSqrtPrice);
    this.pool.poolState.sqrtPrice = r.nextSqrtPrice;
    const includedIn = swapMode === 1 ? big(r.includedFeeInputAmount) : amountIn;
    this.pool.poolState.quoteReserve = bn(this.quoteReserve);
    return {
      tradeDirection: dir,
      swapMode,
      amount0: amountIn,
      amount1: output - output / 100n,
      result: r,
      includedIn,
      excludedIn,
      output,
      tradingFee,
      protocolFee,
      referralFee,
      nextSqrtPrice: this.sqrtPrice,
      quoteReserve: this.quoteReserve,
      baseReserve: this.baseReserve,
      completed: this.complete,
    };
  }

  /** claim_trading_fee with max amounts u64::MAX: everything the partner has. */
  claimPartner(): [bigint, bigint] {
    const out: [bigint, bigint] = [this.partnerBaseFee, this.partnerQuoteFee];
    this.partnerBaseFee = 0n;
    this.partnerQuoteFee = 0n;
    return out;
  }

  claimCreator(): [bigint, bigint] {
    const out: [bigint, bigint] = [this.creatorBaseFee, this.creatorQuoteFee];
    this.creatorBaseFee = 0n;
    this.creatorQuoteFee = 0n;
    return out;
  }
}

/** What initialize_virtual_pool mints into the base vault. */
function initialBaseSupply(c: PoolConfig): bigint {
  if (c.fixedTokenSupplyFlag === 1) return big(c.preMigrationTokenSupply);
  const v = c.lockedVestingConfig;
  const vesting = big(v.amountPerPeriod) * big(v.numberOfPeriod) + big(v.cliffUnlockAmount);
  return big(c.swapBaseAmount) + big(c.migrationBaseThreshold) + vesting;
}
