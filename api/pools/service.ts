/**
 * The pool and quote reads of the Application API: which pool a coin trades in now (Postgres:
 * platform_pools and agents), its live state from the chain (chain.ts), and quotes computed
 * with the Meteora SDKs' own quote functions on that state.
 */
import BN from "bn.js";
import { getFeeMode as dammFeeMode, getLiquidityHandler, getPriceImpact, swapQuoteExactInput } from "@meteora-ag/cp-amm-sdk";
import { getFeeMode as dbcFeeMode, swapQuoteExactIn } from "@meteora-ag/dynamic-bonding-curve-sdk";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import type { ConfigRegistry } from "../../ingest/contract/configs";
import { priceFromSqrt } from "../../ingest/contract/market-math";
import { big, bn } from "../../ingest/simulator/dbc";
import { ApiError, notFound, validationError } from "../errors";
import { PoolReadError, type DammV2Snapshot, type DbcSnapshot, type PoolReader, type PoolSnapshot, type PoolTarget } from "./chain";
import type { QuoteRequest } from "./model";

export type PoolDeps = {
  sql: Sql;
  configs: ConfigRegistry;
  /** null when no SOLANA_RPC_URL is configured: both reads answer 503 */
  reader: PoolReader | null;
  log: Logger;
};

type Venue = "dbc" | "damm_v2";
/** Where a public platform coin trades now, from Postgres. */
export type CoinPools = { mint: string; dbcPool: string; dammPool: string | null; config: string };

/** 404 for a mint that is not a public platform coin (unknown, still launching, or hidden): the Data API's rule. */
export async function coinPools(sql: Sql, mint: string): Promise<CoinPools> {
  const rows = await sql<{ address: string; venue: Venue; config: string }[]>`
    SELECT p.address, p.venue, p.config
    FROM agents a JOIN platform_pools p ON p.mint = a.mint
    WHERE a.mint = ${mint} AND NOT a.hidden AND a.dbc_pool <> ''
    ORDER BY p.created_at, p.address`;
  const dbc = rows.find((r) => r.venue === "dbc");
  if (!dbc) throw notFound(`no public coin with mint ${mint}`);
  return { mint, dbcPool: dbc.address, dammPool: rows.find((r) => r.venue === "damm_v2")?.address ?? null, config: dbc.config };
}

const upstream = () => new ApiError(502, "UPSTREAM_ERROR", "the chain could not be read right now; retry in a few seconds", undefined, { "retry-after": "2" });

/** The live snapshot of the pool the coin trades in now; RPC trouble is logged and answered 502. */
export async function snapshotOf(deps: PoolDeps, coin: CoinPools): Promise<PoolSnapshot> {
  if (!deps.reader) throw new ApiError(503, "UPSTREAM_ERROR", "this deployment has no Solana RPC configured; live pool state is not available");
  const target: PoolTarget = coin.dammPool ? { venue: "damm_v2", pool: coin.dammPool } : { venue: "dbc", pool: coin.dbcPool, config: coin.config };
  try {
    return await deps.reader.get(target);
  } catch (err) {
    deps.log.error("pool read failed", { mint: coin.mint, venue: target.venue, pool: target.pool, err: err as Error, chainAnswered: err instanceof PoolReadError });
    throw upstream();
  }
}

/** Base (the coin) and quote decimals, from the platform config the coin was made on. */
export function decimalsOf(deps: Pick<PoolDeps, "configs">, coin: CoinPools, snapshot: PoolSnapshot) {
  const cfg = deps.configs.byAddress.get(coin.config);
  const base = snapshot.venue === "dbc" ? snapshot.config.tokenDecimal : (cfg?.tokenDecimals ?? 6);
  return { base, quote: cfg?.quote.decimals ?? 9 };
}

/** The DBC curve is full: no swap goes through until the pool migrates. */
const curveFull = (s: DbcSnapshot) => s.state.poolState.quoteReserve.gte(s.config.migrationQuoteThreshold);
const migratedOnChain = (s: DbcSnapshot) => s.state.poolState.isMigrated !== 0;
/** The chain point fees are scheduled in: the slot or the unix time of the read (the pool's activation type). */
const currentPoint = (activationType: number, s: PoolSnapshot) => new BN(activationType === 0 ? s.slot : s.unixTimestamp);
/** Whether the coin is the DAMM v2 pool's token A (it is for pools a DBC migration made). */
const coinIsA = (s: DammV2Snapshot, mint: string) => s.state.tokenAMint.toBase58() === mint;

/** An answer and when the chain state behind it was read (its Cache-Control follows that read's age). */
export type Answer<T> = { value: T; readAtMs: number };

export async function poolState(deps: PoolDeps, mint: string): Promise<Answer<PoolView>> {
  const coin = await coinPools(deps.sql, mint);
  const s = await snapshotOf(deps, coin);
  return { value: poolView(s, mint, decimalsOf(deps, coin, s)), readAtMs: s.readAtMs };
}

export type PoolView = {
  mint: string;
  venue: Venue;
  pool: string;
  slot: number;
  baseReserve: string;
  quoteReserve: string;
  sqrtPrice: string;
  priceSol: number;
  progressPct: number;
  migrated: boolean;
  curveComplete: boolean;
};

/** The pool's state as the API shows it: amounts in atoms as decimal strings, the price of one whole coin in SOL. */
export function poolView(s: PoolSnapshot, mint: string, dec: { base: number; quote: number }): PoolView {
  if (s.venue === "dbc") {
    const ps = s.state.poolState;
    const reserve = big(ps.quoteReserve);
    const threshold = big(s.config.migrationQuoteThreshold);
    const migrated = migratedOnChain(s);
    const sqrtPrice = big(ps.sqrtPrice);
    return {
      mint,
      venue: "dbc",
      pool: s.pool,
      slot: s.slot,
      baseReserve: big(ps.baseReserve).toString(),
      quoteReserve: reserve.toString(),
      sqrtPrice: sqrtPrice.toString(),
      priceSol: priceFromSqrt(sqrtPrice, dec.base, dec.quote),
      progressPct: migrated ? 100 : threshold > 0n ? Math.min(100, Number((reserve * 10000n) / threshold) / 100) : 0,
      migrated,
      curveComplete: !migrated && curveFull(s),
    };
  }
  const [a, b] = getLiquidityHandler(s.state).getReservesAmount();
  const isA = coinIsA(s, mint);
  const sqrtPrice = big(s.state.sqrtPrice);
  const priceAinB = priceFromSqrt(sqrtPrice, isA ? dec.base : dec.quote, isA ? dec.quote : dec.base);
  return {
    mint,
    venue: "damm_v2",
    pool: s.pool,
    slot: s.slot,
    baseReserve: big(isA ? a : b).toString(),
    quoteReserve: big(isA ? b : a).toString(),
    sqrtPrice: sqrtPrice.toString(),
    priceSol: isA ? priceAinB : priceAinB > 0 ? 1 / priceAinB : 0,
    progressPct: 100,
    migrated: true,
    curveComplete: false,
  };
}

export type Quote = {
  venue: Venue;
  side: "buy" | "sell";
  amountIn: string;
  amountOut: string;
  minimumAmountOut: string;
  fee: string;
  /** the mint `fee` is in: the quote token's, or the coin's for a buy charged on its output */
  feeMint: string;
  slippageBps: number;
  priceImpactPct: number;
};

const tooLarge = (side: "buy" | "sell") =>
  validationError([{ field: "amount", message: side === "buy" ? "is more than the pool can fill before its curve completes; buy less" : "is more than the pool can take; sell less" }]);

/** SDK refusals that mean "this amount cannot be filled", as opposed to bugs. */
const isLiquidityRefusal = (e: unknown) => e instanceof Error && /liquidity|price range|overflow/i.test(`${e.name} ${e.message}`);

export async function quote(deps: PoolDeps, mint: string, q: QuoteRequest): Promise<Answer<Quote>> {
  const coin = await coinPools(deps.sql, mint);
  const s = await snapshotOf(deps, coin);
  return { value: quoteAt(s, mint, decimalsOf(deps, coin, s), q), readAtMs: s.readAtMs };
}

/** A quote on a snapshot, with the venue's SDK quote function (exact in; no referral; not a first swap). */
export function quoteAt(s: PoolSnapshot, mint: string, dec: { base: number; quote: number }, q: QuoteRequest): Quote {
  const sell = q.side === "sell";
  const head = { venue: s.venue, side: q.side, amountIn: q.amount.toString(), slippageBps: q.slippageBps };
  try {
    if (s.venue === "dbc") {
      if (migratedOnChain(s) || curveFull(s))
        throw new ApiError(409, "CURVE_COMPLETE", "the bonding curve is full and waits for migration; quotes resume on the DAMM v2 pool once it has migrated", undefined, { "retry-after": "5" });
      const r = swapQuoteExactIn(s.state, s.config, sell, bn(q.amount), q.slippageBps, false, currentPoint(s.config.activationType, s), false);
      const impact = getPriceImpact(bn(q.amount), r.outputAmount, s.state.poolState.sqrtPrice, sell, dec.base, dec.quote);
      return {
        ...head,
        amountOut: big(r.outputAmount).toString(),
        minimumAmountOut: big(r.minimumAmountOut ?? r.outputAmount).toString(),
        fee: (big(r.tradingFee) + big(r.protocolFee) + big(r.referralFee)).toString(),
        // the program's own rule (FeeMode::get_fee_mode): trade direction 0 = base to quote (a sell)
        feeMint: (dbcFeeMode(s.config.collectFeeMode, sell ? 0 : 1, false).feesOnBaseToken ? s.state.poolState.baseMint : s.config.quoteMint).toBase58(),
        priceImpactPct: impact.toNumber(),
      };
    }
    const isA = coinIsA(s, mint);
    const aToB = sell === isA;
    const r = swapQuoteExactInput(s.state, currentPoint(s.state.activationType, s), bn(q.amount), q.slippageBps, aToB, false, isA ? dec.base : dec.quote, isA ? dec.quote : dec.base);
    return {
      ...head,
      amountOut: big(r.outputAmount).toString(),
      minimumAmountOut: big(r.minimumAmountOut ?? r.outputAmount).toString(),
      fee: (big(r.claimingFee) + big(r.compoundingFee) + big(r.protocolFee) + big(r.referralFee)).toString(),
      // trade direction 0 = A to B
      feeMint: (dammFeeMode(s.state.collectFeeMode, aToB ? 0 : 1, false).feesOnTokenA ? s.state.tokenAMint : s.state.tokenBMint).toBase58(),
      priceImpactPct: r.priceImpact.toNumber(),
    };
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (isLiquidityRefusal(e)) throw tooLarge(q.side);
    if (e instanceof Error && e.name === "SwapDisabledError") throw new ApiError(409, "SWAP_DISABLED", "this pool does not take swaps right now");
    throw e;
  }
}
