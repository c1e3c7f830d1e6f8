/** DAMM v2 side: migration_damm_v2 (a DBC instruction whose CPIs create the DAMM v2 pool), cp-amm swaps and position fee claims. */
import { DEFAULT_PUBKEY, TOKEN_2022_PROGRAM_ID, type SimOuterInstruction, type SimInstruction } from "./encode";
import { MIN_SQRT_PRICE, MAX_SQRT_PRICE, deltaA, deltaB, type DammPosition, type DammSwap } from "./damm";
import { B, outer, programs, type Codecs } from "./ix-common";
import type { PoolSim } from "./world";

export type MigrationAccounts = {
  dammPool: string;
  migrationMetadata: string;
  vaultA: string;
  vaultB: string;
  payer: string;
  positions: DammPosition[];
};

/** migration_damm_v2 with the cp-amm CPIs it makes: initialize_pool (+ EvtCreatePosition, EvtInitializePool), then a second position. */
export function migrationIx(c: Codecs, p: PoolSim, m: MigrationAccounts, sqrtPrice: bigint, now: number): SimOuterInstruction {
  const [first, second] = m.positions as [DammPosition, DammPosition | undefined];
  const dbcAuthority = c.dbc.fixed("migration_damm_v2", "pool_authority");
  const ix = c.dbc.instruction(
    "migration_damm_v2",
    {},
    {
      virtual_pool: p.pool,
      migration_metadata: m.migrationMetadata,
      config: p.config.address,
      pool: m.dammPool,
      first_position_nft_mint: first.nftMint,
      first_position_nft_account: first.nftAccount,
      first_position: first.address,
      ...(second ? { second_position_nft_mint: second.nftMint, second_position_nft_account: second.nftAccount, second_position: second.address } : {}),
      damm_pool_authority: c.damm.fixed("swap2", "pool_authority"),
      base_mint: p.mint,
      quote_mint: p.config.quoteMint,
      token_a_vault: m.vaultA,
      token_b_vault: m.vaultB,
      base_vault: p.baseVault,
      quote_vault: p.quoteVault,
      payer: m.payer,
      ...programs(p),
      damm_event_authority: c.damm.eventAuthority,
    },
  );
  const pool = c.damm.key(m.dammPool);
  const a = (l: bigint) => deltaA(sqrtPrice, MAX_SQRT_PRICE, l, true);
  const b = (l: bigint) => deltaB(MIN_SQRT_PRICE, sqrtPrice, l, true);
  const inner: SimInstruction[] = [
    c.damm.instruction(
      "initialize_pool",
      { params: { liquidity: B(first.liquidity), sqrt_price: B(sqrtPrice), activation_point: null } },
      {
        creator: dbcAuthority,
        position_nft_mint: first.nftMint,
        position_nft_account: first.nftAccount,
        payer: dbcAuthority,
        config: p.config.dammConfig,
        pool: m.dammPool,
        position: first.address,
        token_a_mint: p.mint,
        token_b_mint: p.config.quoteMint,
        token_a_vault: m.vaultA,
        token_b_vault: m.vaultB,
        payer_token_a: p.baseVault,
        payer_token_b: p.quoteVault,
        ...programs(p),
      },
    ),
    c.damm.event("EvtCreatePosition", { pool, owner: c.damm.key(dbcAuthority), position: c.damm.key(first.address), position_nft_mint: c.damm.key(first.nftMint) }),
    c.damm.event("EvtInitializePool", {
      pool,
      token_a_mint: c.damm.key(p.mint),
      token_b_mint: c.damm.key(p.config.quoteMint),
      creator: c.damm.key(dbcAuthority),
      payer: c.damm.key(dbcAuthority),
      alpha_vault: c.damm.key(DEFAULT_PUBKEY),
      pool_fees: { base_fee: { data: baseFeeData(p.config.dammFeeNumerator) }, compounding_fee_bps: 0, padding: 0, dynamic_fee: null },
      sqrt_min_price: B(MIN_SQRT_PRICE),
      sqrt_max_price: B(MAX_SQRT_PRICE),
      activation_type: p.config.cfg.activationType,
      collect_fee_mode: p.config.dammCollectFeeMode,
      liquidity: B(first.liquidity),
      sqrt_price: B(sqrtPrice),
      activation_point: B(now),
      token_a_flag: p.config.tokenType,
      token_b_flag: p.config.quoteTokenProgram === TOKEN_2022_PROGRAM_ID ? 1 : 0,
      token_a_amount: B(a(first.liquidity)),
      token_b_amount: B(b(first.liquidity)),
      total_amount_a: B(a(first.liquidity)),
      total_amount_b: B(b(first.liquidity)),
      pool_type: 0,
    }),
  ];
  if (second) {
    inner.push(
      c.damm.instruction("create_position", {}, { owner: dbcAuthority, position_nft_mint: second.nftMint, position_nft_account: second.nftAccount, pool: m.dammPool, position: second.address, payer: m.payer }),
      c.damm.event("EvtCreatePosition", { pool, owner: c.damm.key(dbcAuthority), position: c.damm.key(second.address), position_nft_mint: c.damm.key(second.nftMint) }),
    );
  }
  return outer(ix, inner);
}

/** cp-amm swap2 (exact in) + EvtSwap2. */
export function dammSwapIx(c: Codecs, p: PoolSim, s: DammSwap, trader: string, quoteAta: string, baseAta: string, now: number): SimOuterInstruction {
  const d = p.damm!;
  const buy = s.tradeDirection === 1;
  const minOut = s.output - s.output / 100n;
  const ix = c.damm.instruction(
    "swap2",
    { _params: { amount_0: B(s.amountIn), amount_1: B(minOut), swap_mode: 0 } },
    {
      pool: d.pool,
      input_token_account: buy ? quoteAta : baseAta,
      output_token_account: buy ? baseAta : quoteAta,
      token_a_vault: d.vaultA,
      token_b_vault: d.vaultB,
      token_a_mint: p.mint,
      token_b_mint: p.config.quoteMint,
      payer: trader,
      ...programs(p),
    },
  );
  const ev = c.damm.event("EvtSwap2", {
    pool: c.damm.key(d.pool),
    trade_direction: s.tradeDirection,
    collect_fee_mode: p.config.dammCollectFeeMode,
    has_referral: false,
    params: { amount_0: B(s.amountIn), amount_1: B(minOut), swap_mode: 0 },
    swap_result: {
      included_fee_input_amount: B(s.amountIn),
      excluded_fee_input_amount: B(s.excludedFeeIn),
      amount_left: B(0),
      output_amount: B(s.output),
      next_sqrt_price: B(s.nextSqrtPrice),
      claiming_fee: B(s.claimingFee),
      protocol_fee: B(s.protocolFee),
      compounding_fee: B(0),
      referral_fee: B(0),
    },
    included_transfer_fee_amount_in: B(s.amountIn),
    included_transfer_fee_amount_out: B(s.output),
    excluded_transfer_fee_amount_out: B(s.output),
    current_timestamp: B(now),
    reserve_a_amount: B(s.reserveA),
    reserve_b_amount: B(s.reserveB),
  });
  return outer(ix, [ev]);
}

/** cp-amm claim_position_fee + EvtClaimPositionFee. */
export function positionClaimIx(c: Codecs, p: PoolSim, pos: DammPosition, baseAta: string, quoteAta: string, feeA: bigint, feeB: bigint): SimOuterInstruction {
  const d = p.damm!;
  const ix = c.damm.instruction(
    "claim_position_fee",
    {},
    {
      pool: d.pool,
      position: pos.address,
      token_a_account: baseAta,
      token_b_account: quoteAta,
      token_a_vault: d.vaultA,
      token_b_vault: d.vaultB,
      token_a_mint: p.mint,
      token_b_mint: p.config.quoteMint,
      position_nft_account: pos.nftAccount,
      signer: pos.owner,
      ...programs(p),
    },
  );
  const ev = c.damm.event("EvtClaimPositionFee", {
    pool: c.damm.key(d.pool),
    position: c.damm.key(pos.address),
    owner: c.damm.key(pos.owner),
    fee_a_claimed: B(feeA),
    fee_b_claimed: B(feeB),
  });
  return outer(ix, [ev]);
}

/** A fee-time-scheduler base fee with no periods: cliff_fee_numerator u64 LE, the rest zero (27 bytes). */
function baseFeeData(numerator: bigint): number[] {
  const out = new Array<number>(27).fill(0);
  for (let i = 0; i < 8; i++) out[i] = Number((numerator >> BigInt(8 * i)) & 0xffn);
  return out;
}
