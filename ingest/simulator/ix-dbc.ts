/** DBC instruction trees: pool creation, swaps, partner and creator fee claims. */
import { tokenTransferChecked, type SimOuterInstruction, type SimInstruction } from "./encode";
import type { DbcSwap } from "./dbc";
import { B, outer, programs, U64_MAX, type Codecs } from "./ix-common";
import type { PoolSim } from "./world";

/** initialize_virtual_pool_with_spl_token (or _with_token2022 for a Token-2022 config) + EvtInitializePool. */
export function createPoolIx(c: Codecs, p: PoolSim, payer: string, activationPoint: number): SimOuterInstruction {
  const ix = c.dbc.instruction(
    p.config.tokenType === 1 ? "initialize_virtual_pool_with_token2022" : "initialize_virtual_pool_with_spl_token",
    { params: { name: p.name, symbol: p.symbol, uri: p.uri } },
    {
      config: p.config.address,
      creator: p.creator,
      base_mint: p.mint,
      quote_mint: p.config.quoteMint,
      pool: p.pool,
      base_vault: p.baseVault,
      quote_vault: p.quoteVault,
      mint_metadata: p.metadata,
      payer,
      token_quote_program: p.config.quoteTokenProgram,
    },
  );
  const ev = c.dbc.event("EvtInitializePool", {
    pool: c.dbc.key(p.pool),
    config: c.dbc.key(p.config.address),
    creator: c.dbc.key(p.creator),
    base_mint: c.dbc.key(p.mint),
    pool_type: p.config.tokenType,
    activation_point: B(activationPoint),
  });
  return outer(ix, [ev]);
}

/** DBC swap2 with its transfers, EvtSwap then EvtSwap2 (the program's order), and EvtCurveComplete when it completes. */
export function dbcSwapIx(
  c: Codecs,
  p: PoolSim,
  s: DbcSwap,
  trader: string,
  quoteAta: string,
  baseAta: string,
  now: number,
  legacyEvent = true,
): SimOuterInstruction {
  const buy = s.tradeDirection === 1;
  const [inAta, outAta] = buy ? [quoteAta, baseAta] : [baseAta, quoteAta];
  const [inMint, outMint] = buy ? [p.config.quoteMint, p.mint] : [p.mint, p.config.quoteMint];
  const [inVault, outVault] = buy ? [p.quoteVault, p.baseVault] : [p.baseVault, p.quoteVault];
  const [inDec, outDec] = buy ? [p.config.quoteDecimals, p.config.baseDecimals] : [p.config.baseDecimals, p.config.quoteDecimals];
  const r = s.result;
  const ix = c.dbc.instruction(
    "swap2",
    { params: { amount_0: B(s.amount0), amount_1: B(s.amount1), swap_mode: s.swapMode } },
    {
      config: p.config.address,
      pool: p.pool,
      input_token_account: inAta,
      output_token_account: outAta,
      base_vault: p.baseVault,
      quote_vault: p.quoteVault,
      base_mint: p.mint,
      quote_mint: p.config.quoteMint,
      payer: trader,
      ...programs(p),
    },
  );
  const pool = c.dbc.key(p.pool);
  const config = c.dbc.key(p.config.address);
  const ts = B(now);
  const inner: SimInstruction[] = [
    tokenTransferChecked(inAta, inMint, inVault, trader, s.includedIn, inDec, buy ? p.config.quoteTokenProgram : p.config.baseTokenProgram),
    tokenTransferChecked(outVault, outMint, outAta, c.dbc.fixed("swap2", "pool_authority"), s.output, outDec, buy ? p.config.baseTokenProgram : p.config.quoteTokenProgram),
  ];
  if (legacyEvent)
    inner.push(c.dbc.event("EvtSwap", {
      pool,
      config,
      trade_direction: s.tradeDirection,
      has_referral: false,
      params: { amount_in: r.includedFeeInputAmount, minimum_amount_out: B(s.amount1) },
      swap_result: {
        actual_input_amount: r.excludedFeeInputAmount,
        output_amount: r.outputAmount,
        next_sqrt_price: r.nextSqrtPrice,
        trading_fee: r.tradingFee,
        protocol_fee: r.protocolFee,
        referral_fee: r.referralFee,
      },
      amount_in: r.includedFeeInputAmount,
      current_timestamp: ts,
    }));
  inner.push(
    c.dbc.event("EvtSwap2", {
      pool,
      config,
      trade_direction: s.tradeDirection,
      has_referral: false,
      swap_parameters: { amount_0: B(s.amount0), amount_1: B(s.amount1), swap_mode: s.swapMode },
      swap_result: {
        included_fee_input_amount: r.includedFeeInputAmount,
        excluded_fee_input_amount: r.excludedFeeInputAmount,
        amount_left: r.amountLeft,
        output_amount: r.outputAmount,
        next_sqrt_price: r.nextSqrtPrice,
        trading_fee: r.tradingFee,
        protocol_fee: r.protocolFee,
        referral_fee: r.referralFee,
      },
      quote_reserve_amount: B(s.quoteReserve),
      migration_threshold: p.curve.thresholdBN,
      current_timestamp: ts,
    }),
  );
  if (s.completed)
    inner.push(c.dbc.event("EvtCurveComplete", { pool, config, base_reserve: B(s.baseReserve), quote_reserve: B(s.quoteReserve) }));
  return outer(ix, inner);
}

/** claim_trading_fee (partner) or claim_creator_trading_fee (creator) + its event. */
export function dbcClaimIx(c: Codecs, p: PoolSim, role: "partner" | "creator", base: bigint, quote: bigint): SimOuterInstruction {
  const common = {
    pool: p.pool,
    base_vault: p.baseVault,
    quote_vault: p.quoteVault,
    base_mint: p.mint,
    quote_mint: p.config.quoteMint,
    ...programs(p),
  };
  const ev = { pool: c.dbc.key(p.pool), token_base_amount: B(base), token_quote_amount: B(quote) };
  if (role === "partner") {
    const ix = c.dbc.instruction(
      "claim_trading_fee",
      { max_amount_a: U64_MAX, max_amount_b: U64_MAX },
      { ...common, config: p.config.address, token_a_account: p.partnerBaseAta, token_b_account: p.config.feeClaimerQuoteAta, fee_claimer: p.config.feeClaimer },
    );
    return outer(ix, [c.dbc.event("EvtClaimTradingFee", ev)]);
  }
  const ix = c.dbc.instruction(
    "claim_creator_trading_fee",
    { max_base_amount: U64_MAX, max_quote_amount: U64_MAX },
    { ...common, token_a_account: p.creatorBaseAta, token_b_account: p.creatorQuoteAta, creator: p.creator },
  );
  return outer(ix, [c.dbc.event("EvtClaimCreatorTradingFee", ev)]);
}
