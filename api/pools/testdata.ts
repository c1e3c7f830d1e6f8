/**
 * Test data for the pool reads: real account bytes from `fixtures/`, and the one account no
 * public fixture holds (a DAMM v2 Pool), built with the cp-amm SDK's own coder from the real
 * EvtInitializePool of the migration fixture (see fixtures/README.md). Not used by production code.
 */
import { readFileSync } from "node:fs";
import BN from "bn.js";
import { PublicKey } from "@solana/web3.js";
import { cpAmmCoder, decodeFeeTimeSchedulerParams } from "@meteora-ag/cp-amm-sdk";
import { FIXTURES_DIR } from "../../infra/testing/fixtures";
import { DAMM_V2, DBC, decodeEventBody } from "../../ingest/decoders/program-coder";
import { discriminatorHex, isEventCpi } from "../../ingest/decoders/event-cpi";
import { fixtureTx } from "../../ingest/decoders/testing";

export const DBC_CONFIG_BYTES = new Uint8Array(readFileSync(FIXTURES_DIR + "mainnet-accounts/dbc-pool-config.fee-in-both.bin"));
export const DBC_POOL_BYTES = new Uint8Array(readFileSync(FIXTURES_DIR + "mainnet-accounts/dbc-virtual-pool.fee-in-both.bin"));

/**
 * The real virtual pool with another quote reserve (the migration threshold: a full curve), migrated flag,
 * coin (base mint), config, or partner fees (what the config's fee claimer may claim).
 */
export async function dbcPoolWith(change: { quoteReserve?: bigint; isMigrated?: boolean; baseMint?: string; config?: string; partnerQuoteFee?: bigint; partnerBaseFee?: bigint }): Promise<Uint8Array> {
  const d = DBC.coder.accounts.decode("VirtualPool", Buffer.from(DBC_POOL_BYTES));
  if (change.quoteReserve !== undefined) d.pool_state.quote_reserve = new BN(change.quoteReserve.toString());
  if (change.isMigrated !== undefined) d.pool_state.is_migrated = change.isMigrated ? 1 : 0;
  if (change.baseMint !== undefined) d.pool_state.base_mint = new PublicKey(change.baseMint);
  if (change.config !== undefined) d.pool_state.config = new PublicKey(change.config);
  if (change.partnerQuoteFee !== undefined) d.pool_state.partner_quote_fee = new BN(change.partnerQuoteFee.toString());
  if (change.partnerBaseFee !== undefined) d.pool_state.partner_base_fee = new BN(change.partnerBaseFee.toString());
  return new Uint8Array(await DBC.coder.accounts.encode("VirtualPool", d));
}

/** The real EvtInitializePool (plain values) that the devnet migration fixture's cp-amm CPI emitted. */
export async function migrationInitEvent(): Promise<any> {
  const tx = await fixtureTx("dbc-migrate-damm-v2.enhanced.json");
  const name = "EvtInitializePool";
  const disc = [...DAMM_V2.eventByDiscriminator].find(([, n]) => n === name)![0];
  for (const outer of tx.instructions)
    for (const ins of outer.inner)
      if (ins.programId === DAMM_V2.programId && isEventCpi(ins.data) && discriminatorHex(ins.data, 8) === disc) return decodeEventBody(DAMM_V2, name, ins.data);
  throw new Error("no EvtInitializePool in the migration fixture");
}

/**
 * A DAMM v2 Pool account as the program initializes it from that event (mints, price range,
 * price, liquidity, fees, activation, fee mode), encoded with the SDK's coder; the base fee
 * goes from the event's Borsh parameters to the pool's pod-aligned form, as the program does.
 */
/** `coinMint`: the coin (token A) the pool is made for; default the fixture's own (other test files use that coin too). */
export async function dammV2PoolBytes(coinMint?: string): Promise<{ bytes: Uint8Array; event: any }> {
  const ev = { ...(await migrationInitEvent()) };
  if (coinMint) ev.token_a_mint = coinMint;
  const size = cpAmmCoder.accounts.size("Pool");
  const blank = Buffer.alloc(size);
  Buffer.from(DAMM_V2.coder.accounts.accountDiscriminator("Pool")).copy(blank);
  const p = cpAmmCoder.accounts.decode("Pool", blank);
  const bn = (x: bigint | number) => new BN(x.toString());
  const fee = decodeFeeTimeSchedulerParams(Buffer.from(ev.pool_fees.base_fee.data));
  const pod = await cpAmmCoder.types.encode("PodAlignedFeeTimeScheduler", {
    cliff_fee_numerator: fee.cliffFeeNumerator,
    base_fee_mode: fee.baseFeeMode,
    padding: [0, 0, 0, 0, 0],
    number_of_period: fee.numberOfPeriod,
    period_frequency: fee.periodFrequency,
    reduction_factor: fee.reductionFactor,
  });
  p.pool_fees.base_fee.base_fee_info.data = [...pod];
  p.pool_fees.protocol_fee_percent = 20;
  p.pool_fees.referral_fee_percent = 20;
  p.pool_fees.compounding_fee_bps = ev.pool_fees.compounding_fee_bps;
  const dyn = ev.pool_fees.dynamic_fee;
  if (dyn)
    Object.assign(p.pool_fees.dynamic_fee, {
      initialized: 1,
      max_volatility_accumulator: dyn.max_volatility_accumulator,
      variable_fee_control: dyn.variable_fee_control,
      bin_step: dyn.bin_step,
      filter_period: dyn.filter_period,
      decay_period: dyn.decay_period,
      reduction_factor: dyn.reduction_factor,
      bin_step_u128: bn(dyn.bin_step_u128),
    });
  p.pool_fees.init_sqrt_price = bn(ev.sqrt_price);
  p.token_a_mint = new PublicKey(ev.token_a_mint);
  p.token_b_mint = new PublicKey(ev.token_b_mint);
  p.liquidity = bn(ev.liquidity);
  p.sqrt_min_price = bn(ev.sqrt_min_price);
  p.sqrt_max_price = bn(ev.sqrt_max_price);
  p.sqrt_price = bn(ev.sqrt_price);
  p.activation_point = bn(ev.activation_point);
  p.activation_type = ev.activation_type;
  p.collect_fee_mode = ev.collect_fee_mode;
  p.pool_type = ev.pool_type;
  p.token_a_amount = bn(ev.token_a_amount);
  p.token_b_amount = bn(ev.token_b_amount);
  p.fee_version = 1;
  p.layout_version = 1;
  // Anchor's accounts.encode writes into a 1000-byte buffer and a Pool is larger: the layout itself, then
  const out = Buffer.alloc(size);
  Buffer.from(DAMM_V2.coder.accounts.accountDiscriminator("Pool")).copy(out);
  (cpAmmCoder.accounts as any).accountLayouts.get("Pool").layout.encode(p, out, 8);
  return { bytes: new Uint8Array(out), event: ev };
}
