/**
 * Trades: DBC swaps along the curve, DAMM v2 swaps after graduation, each with what a
 * wallet sends around the swap. On a SOL-quoted pool the trader wraps and unwraps in the
 * same transaction, as the devnet fixtures show: create its wrapped-SOL ATA, (buy) transfer
 * the lamports in and SyncNative, swap, CloseAccount back to the wallet; the trader's coin
 * ATA is created (rent paid by the trader) on its first buy. So the trader's SOL moves by
 * the quote amount, and only its coin account and the pool's vaults show token changes.
 */
import type { DbcSwap } from "./dbc";
import type { DammSwap } from "./damm";
import { createAta, NATIVE_MINT, rentExempt, systemTransfer, tokenAccountSize, tokenCloseAccount, tokenSyncNative } from "./encode";
import { transfer, type EnhancedTransaction, type TokenTransfer } from "./helius";
import { dbcSwapIx } from "./ix-dbc";
import { dammSwapIx } from "./ix-damm";
import type { Market, Tx } from "./market";
import type { Rng } from "./random";
import { credit, debit, type Holding, type PoolSim, type Wallet } from "./world";

export function dbcTrade(m: Market, p: PoolSim): EnhancedTransaction | null {
  const r = m.rng;
  const buy = p.holders.length === 0 || r.int(1000) < p.buyPermille;
  let s: DbcSwap | null;
  let holding: Holding;
  let opens = false;
  if (buy) {
    const wi = r.int(m.traders);
    const th = p.curve.threshold;
    s = p.curve.buy(r.logUniform(th / 3000n + 1n, th / 60n + 2n), m.now, false);
    if (s === null) return null;
    opens = !p.holdings.has(wi);
    holding = credit(p, wi, s.output, r);
    m.counts.dbcBuys++;
  } else {
    holding = p.holders[r.int(p.holders.length)]!;
    const amount = sellAmount(r, holding.amount);
    s = p.curve.sell(amount, m.now);
    if (s === null) return null;
    debit(p, holding, amount);
    m.counts.dbcSells++;
  }
  const w = m.wallets[holding.wallet]!;
  const t = m.begin(w.address);
  const ix = dbcSwap(m, t, p, s, w, holding.ata, opens);
  recordDbcSwap(m, t.h.signature, ix, p, s, w.address);
  return m.finish(t);
}

/** A DBC swap2 by `w` with the wallet's instructions around it; returns the swap's outer index. */
export function dbcSwap(m: Market, t: Tx, p: PoolSim, s: DbcSwap, w: Wallet, baseAta: string, opensBaseAta: boolean, now = m.now): number {
  const auth = m.codecs.dbc.fixed("swap2", "pool_authority");
  return swapAround(m, t, p, { buy: s.tradeDirection === 1, amountIn: s.includedIn, output: s.output, baseVault: p.baseVault, quoteVault: p.quoteVault, auth }, w, baseAta, opensBaseAta, () =>
    dbcSwapIx(m.codecs, p, s, w.address, w.quoteAta, baseAta, now, m.legacySwapEvent),
  );
}

/** A DAMM v2 swap2 by `w` with the wallet's instructions around it; returns the swap's outer index. */
export function dammSwap(m: Market, t: Tx, p: PoolSim, sw: DammSwap, w: Wallet, baseAta: string, opensBaseAta: boolean): number {
  const d = p.damm!;
  const auth = m.codecs.damm.fixed("swap2", "pool_authority");
  return swapAround(m, t, p, { buy: sw.tradeDirection === 1, amountIn: sw.amountIn, output: sw.output, baseVault: d.vaultA, quoteVault: d.vaultB, auth }, w, baseAta, opensBaseAta, () =>
    dammSwapIx(m.codecs, p, sw, w.address, w.quoteAta, baseAta, m.now),
  );
}

type SwapMove = { buy: boolean; amountIn: bigint; output: bigint; baseVault: string; quoteVault: string; auth: string };

function swapAround(m: Market, t: Tx, p: PoolSim, s: SwapMove, w: Wallet, baseAta: string, opensBaseAta: boolean, swapIx: () => Tx["ixs"][number]): number {
  const c = p.config;
  const { b, ixs } = t;
  const sol = c.quoteMint === NATIVE_MINT;
  if (sol) ixs.push(createAta(w.address, w.quoteAta, w.address, c.quoteMint, c.quoteTokenProgram, true));
  if (opensBaseAta) {
    ixs.push(createAta(w.address, baseAta, w.address, p.mint, c.baseTokenProgram, true));
    b.rent(w.address, baseAta, rentExempt(tokenAccountSize(c.baseTokenProgram)));
  }
  if (sol && s.buy) m.record({ kind: "sol_transfer", signature: t.h.signature, ix: ixs.length, from: w.address, to: w.quoteAta, lamports: s.amountIn });
  if (sol && s.buy) ixs.push({ ...systemTransfer(w.address, w.quoteAta, s.amountIn), innerInstructions: [] }, { ...tokenSyncNative(w.quoteAta, c.quoteTokenProgram), innerInstructions: [] });
  const at = ixs.length;
  ixs.push(swapIx());
  if (sol) ixs.push({ ...tokenCloseAccount(w.quoteAta, w.address, w.address, c.quoteTokenProgram), innerInstructions: [] });
  // the quote side: the wallet's SOL (through its short-lived wrapped-SOL account) or its quote token account
  const quoteDelta = s.buy ? -s.amountIn : s.output;
  if (sol) b.native(w.address, quoteDelta);
  else b.token(w.quoteAta, c.quoteMint, w.address, c.quoteDecimals, quoteDelta);
  b.token(s.quoteVault, c.quoteMint, s.auth, c.quoteDecimals, -quoteDelta, sol);
  const baseDelta = s.buy ? s.output : -s.amountIn;
  b.token(baseAta, p.mint, w.address, c.baseDecimals, baseDelta);
  b.token(s.baseVault, p.mint, s.auth, c.baseDecimals, -baseDelta);
  t.tokenTransfers.push(...swapTransfers(p, s, w, baseAta));
  if (sol && s.buy) t.nativeTransfers.push({ fromUserAccount: w.address, toUserAccount: w.quoteAta, amount: Number(s.amountIn) });
  return at;
}

function swapTransfers(p: PoolSim, s: SwapMove, w: Wallet, ata: string): TokenTransfer[] {
  const c = p.config;
  return s.buy
    ? [transfer(c.quoteMint, c.quoteDecimals, s.amountIn, [w.quoteAta, w.address], [s.quoteVault, s.auth]), transfer(p.mint, c.baseDecimals, s.output, [s.baseVault, s.auth], [ata, w.address])]
    : [transfer(p.mint, c.baseDecimals, s.amountIn, [ata, w.address], [s.baseVault, s.auth]), transfer(c.quoteMint, c.quoteDecimals, s.output, [s.quoteVault, s.auth], [w.quoteAta, w.address])];
}

export function recordDbcSwap(m: Market, signature: string, ix: number, p: PoolSim, s: DbcSwap, trader: string): void {
  const inAmt = s.includedIn;
  const out = s.output;
  const buy = s.tradeDirection === 1;
  m.record({
    kind: "trade", signature, ix, venue: "dbc", pool: p.pool, config: p.config.address, mint: p.mint, quoteMint: p.config.quoteMint,
    side: buy ? "buy" : "sell", trader, amountQuote: buy ? inAmt : out, amountBase: buy ? out : inAmt,
    sqrtPrice: s.nextSqrtPrice, quoteReserve: s.quoteReserve, migrationThreshold: p.curve.threshold,
    tradingFee: s.tradingFee, protocolFee: s.protocolFee, referralFee: s.referralFee,
    // the config's collect_fee_mode, not the event: 1 (OutputToken) charges a buy in the coin
    feesIn: buy && p.config.cfg.collectFeeMode === 1 && s.tradingFee + s.protocolFee + s.referralFee > 0n ? "base" : "quote",
  });
  if (s.completed) {
    p.phase = "complete";
    m.counts.curveCompletions++;
    m.scheduleMigration(p);
    m.record({ kind: "curve_complete", signature, ix, pool: p.pool, config: p.config.address, mint: p.mint, baseReserve: s.baseReserve, quoteReserve: s.quoteReserve });
  }
}

export function recordDammSwap(m: Market, signature: string, ix: number, p: PoolSim, sw: DammSwap, trader: string): void {
  const buy = sw.tradeDirection === 1;
  m.record({
    kind: "trade", signature, ix, venue: "damm_v2", pool: p.damm!.pool, config: "", mint: p.mint, quoteMint: p.config.quoteMint,
    side: buy ? "buy" : "sell", trader, amountQuote: buy ? sw.amountIn : sw.output, amountBase: buy ? sw.output : sw.amountIn,
    sqrtPrice: sw.nextSqrtPrice, quoteReserve: sw.reserveB, migrationThreshold: 0n, tradingFee: sw.claimingFee, protocolFee: sw.protocolFee, referralFee: 0n,
    // the pool's collect fee mode: 0 (BothToken) charges a buy in token A, the coin
    feesIn: buy && p.config.dammCollectFeeMode === 0 && sw.claimingFee + sw.protocolFee > 0n ? "base" : "quote",
  });
}

export function dammTrade(m: Market, p: PoolSim): EnhancedTransaction | null {
  const r = m.rng;
  const d = p.damm!;
  const buy = p.holders.length === 0 || r.int(1000) < 500;
  let sw: DammSwap | null;
  let holding: Holding;
  let opens = false;
  if (buy) {
    sw = d.state.buy(r.logUniform(d.state.reserveB / 20000n + 1n, d.state.reserveB / 200n + 2n));
    if (sw === null) return null;
    const wi = r.int(m.traders);
    opens = !p.holdings.has(wi);
    holding = credit(p, wi, sw.output, r);
    m.counts.dammBuys++;
  } else {
    holding = p.holders[r.int(p.holders.length)]!;
    const amount = sellAmount(r, holding.amount);
    sw = d.state.sell(amount);
    if (sw === null) return null;
    debit(p, holding, amount);
    m.counts.dammSells++;
  }
  const w = m.wallets[holding.wallet]!;
  const t = m.begin(w.address);
  const ix = dammSwap(m, t, p, sw, w, holding.ata, opens);
  recordDammSwap(m, t.h.signature, ix, p, sw, w.address);
  return m.finish(t);
}

/** Sell 10%..100% of a holding (all of it when that rounds to zero). */
function sellAmount(r: Rng, held: bigint): bigint {
  const a = (held * BigInt(r.range(10, 100))) / 100n;
  return a > 0n ? a : held;
}
