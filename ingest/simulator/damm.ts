/**
 * A DAMM v2 pool created by migration: one full-range concentrated-liquidity position
 * set ([MIN_SQRT_PRICE, MAX_SQRT_PRICE]), which behaves as a constant-product pool with
 * sqrt price = sqrt(B / A) in atoms, Q64.64. Exact bigint versions of cp-amm's
 * curve formulas (get_next_sqrt_price_from_input, get_delta_amount_a/b_unsigned) and
 * its fee split (trading fee rounded up, 20% protocol share). Token A is the coin,
 * token B the quote.
 */
export const MIN_SQRT_PRICE = 4295048016n;
export const MAX_SQRT_PRICE = 79226673521066979257578248091n;
const FEE_DENOMINATOR = 1_000_000_000n;
const PROTOCOL_FEE_PERCENT = 20n;
const Q128 = 1n << 128n;

const divUp = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** cp-amm get_delta_amount_a_unsigned: L * (upper - lower) / (lower * upper) */
export function deltaA(lower: bigint, upper: bigint, liquidity: bigint, up: boolean): bigint {
  const num = liquidity * (upper - lower);
  const den = lower * upper;
  return up ? divUp(num, den) : num / den;
}

/** cp-amm get_delta_amount_b_unsigned: L * (upper - lower) >> 128 */
export function deltaB(lower: bigint, upper: bigint, liquidity: bigint, up: boolean): bigint {
  const num = liquidity * (upper - lower);
  return up ? divUp(num, Q128) : num >> 128n;
}

export type DammPosition = { address: string; nftMint: string; nftAccount: string; owner: string; liquidity: bigint; feeA: bigint; feeB: bigint };

export type DammSwap = {
  /** 0 = AtoB (sell the coin), 1 = BtoA (buy the coin) */
  tradeDirection: 0 | 1;
  amountIn: bigint;
  excludedFeeIn: bigint;
  output: bigint;
  nextSqrtPrice: bigint;
  claimingFee: bigint;
  protocolFee: bigint;
  reserveA: bigint;
  reserveB: bigint;
};

export class DammPool {
  sqrtPrice: bigint;
  readonly liquidity: bigint;
  reserveA: bigint;
  reserveB: bigint;
  readonly positions: DammPosition[];

  /**
   * @param feeNumerator trading fee over 1e9
   * @param collectFeeMode 0 = BothToken (fee on the output), 1 = OnlyB (fee always in token B)
   */
  constructor(
    sqrtPrice: bigint,
    liquidity: bigint,
    positions: DammPosition[],
    readonly feeNumerator: bigint,
    readonly collectFeeMode: number,
  ) {
    this.sqrtPrice = sqrtPrice;
    this.liquidity = liquidity;
    this.positions = positions;
    this.reserveA = deltaA(sqrtPrice, MAX_SQRT_PRICE, liquidity, true);
    this.reserveB = deltaB(MIN_SQRT_PRICE, sqrtPrice, liquidity, true);
  }

  /** Liquidity for depositing `base` and `quote` at `sqrtPrice` on the full range: the smaller of the two. */
  static liquidityFor(base: bigint, quote: bigint, sqrtPrice: bigint): bigint {
    const fromBase = (base * sqrtPrice * MAX_SQRT_PRICE) / (MAX_SQRT_PRICE - sqrtPrice);
    const fromQuote = (quote << 128n) / (sqrtPrice - MIN_SQRT_PRICE);
    return fromBase < fromQuote ? fromBase : fromQuote;
  }

  private fee(amount: bigint): bigint {
    return divUp(amount * this.feeNumerator, FEE_DENOMINATOR);
  }

  /** Buy the coin with `quoteIn` atoms of B; null if nothing would come out. */
  buy(quoteIn: bigint): DammSwap | null {
    const feeOnInput = this.collectFeeMode === 1;
    const fee = feeOnInput ? this.fee(quoteIn) : 0n;
    const excluded = quoteIn - fee;
    const next = this.sqrtPrice + (excluded << 128n) / this.liquidity;
    if (next > MAX_SQRT_PRICE) return null;
    const grossOut = deltaA(this.sqrtPrice, next, this.liquidity, false);
    const outFee = feeOnInput ? 0n : this.fee(grossOut);
    const output = grossOut - outFee;
    if (output <= 0n) return null;
    this.sqrtPrice = next;
    this.reserveB += excluded;
    this.reserveA -= grossOut;
    const [claiming, protocol] = this.accrue(feeOnInput ? fee : outFee, !feeOnInput);
    return this.result(1, quoteIn, excluded, output, claiming, protocol);
  }

  /** Sell `baseIn` atoms of the coin for B; null if nothing would come out. */
  sell(baseIn: bigint): DammSwap | null {
    const product = baseIn * this.sqrtPrice;
    const next = divUp(this.liquidity * this.sqrtPrice, this.liquidity + product);
    if (next < MIN_SQRT_PRICE) return null;
    const grossOut = deltaB(next, this.sqrtPrice, this.liquidity, false);
    const fee = this.fee(grossOut);
    const output = grossOut - fee;
    if (output <= 0n) return null;
    this.sqrtPrice = next;
    this.reserveA += baseIn;
    this.reserveB -= grossOut;
    const [claiming, protocol] = this.accrue(fee, false);
    return this.result(0, baseIn, baseIn, output, claiming, protocol);
  }

  /** Split a trading fee: protocol share, the rest to positions pro rata (dust to the first). */
  private accrue(fee: bigint, inA: boolean): [bigint, bigint] {
    const protocol = (fee * PROTOCOL_FEE_PERCENT) / 100n;
    const claiming = fee - protocol;
    let left = claiming;
    for (let i = this.positions.length - 1; i >= 0; i--) {
      const p = this.positions[i]!;
      const share = i === 0 ? left : (claiming * p.liquidity) / this.liquidity;
      left -= share;
      if (inA) p.feeA += share;
      else p.feeB += share;
    }
    return [claiming, protocol];
  }

  private result(dir: 0 | 1, amountIn: bigint, excluded: bigint, output: bigint, claiming: bigint, protocol: bigint): DammSwap {
    return {
      tradeDirection: dir,
      amountIn,
      excludedFeeIn: excluded,
      output,
      nextSqrtPrice: this.sqrtPrice,
      claimingFee: claiming,
      protocolFee: protocol,
      reserveA: this.reserveA,
      reserveB: this.reserveB,
    };
  }

  /** claim_position_fee: everything the position has accrued. */
  claim(position: DammPosition): [bigint, bigint] {
    const out: [bigint, bigint] = [position.feeA, position.feeB];
    position.feeA = 0n;
    position.feeB = 0n;
    return out;
  }
}

/** DBC MigrationFeeOption to the DAMM v2 pool fee in bps (6 = Customizable: the config's own bps). */
export function migratedFeeBps(migrationFeeOption: number, migratedPoolFeeBps: number): number {
  const fixed = [25, 30, 100, 200, 400, 600];
  return migrationFeeOption < fixed.length ? fixed[migrationFeeOption]! : migratedPoolFeeBps || 25;
}
