/** Trades: DBC swaps along the curve, DAMM v2 swaps after graduation. */
import type { DbcSwap } from "./dbc";
import type { DammSwap } from "./damm";
import { computeBudget } from "./encode";
import { enhancedTransaction, transfer, type EnhancedTransaction } from "./helius";
import { dbcSwapIx } from "./ix-dbc";
import { dammSwapIx } from "./ix-damm";
import type { Market } from "./market";
import type { Rng } from "./random";
import { credit, debit, type PoolSim, type Wallet } from "./world";

export function dbcTrade(m: Market, p: PoolSim): EnhancedTransaction | null {
  const r = m.rng;
  const buy = p.holders.length === 0 || r.int(1000) < p.buyPermille;
  let s: DbcSwap | null;
  let wi: number;
  let ata: string;
  if (buy) {
    wi = r.int(m.wallets.length);
    const th = p.curve.threshold;
    s = p.curve.buy(r.logUniform(th / 3000n + 1n, th / 60n + 2n), m.now, false);
    if (s === null) return null;
    ata = credit(p, wi, s.output, r).ata;
    m.counts.dbcBuys++;
  } else {
    const holding = p.holders[r.int(p.holders.length)]!;
    const amount = sellAmount(r, holding.amount);
    s = p.curve.sell(amount, m.now);
    if (s === null) return null;
    debit(p, holding, amount);
    wi = holding.wallet;
    ata = holding.ata;
    m.counts.dbcSells++;
  }
  const w = m.wallets[wi]!;
  const h = m.header(w.address);
  const ix = dbcSwapIx(m.codecs, p, s, w.address, w.quoteAta, ata, m.now, m.legacySwapEvent);
  recordDbcSwap(m, h.signature, 2, p, s, w.address);
  return enhancedTransaction(h, [...computeBudget(), ix], { tokenTransfers: dbcTransfersFor(m, p, s, w, ata) });
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
  });
  if (s.completed) {
    p.phase = "complete";
    m.counts.curveCompletions++;
    m.scheduleMigration(p);
    m.record({ kind: "curve_complete", signature, ix, pool: p.pool, config: p.config.address, mint: p.mint, baseReserve: s.baseReserve, quoteReserve: s.quoteReserve });
  }
}

export function dbcTransfersFor(m: Market, p: PoolSim, s: DbcSwap, w: Wallet, ata: string) {
  const c = p.config;
  const inAmt = s.includedIn;
  const out = s.output;
  const auth = m.codecs.dbc.fixed("swap2", "pool_authority");
  return s.tradeDirection === 1
    ? [transfer(c.quoteMint, c.quoteDecimals, inAmt, [w.quoteAta, w.address], [p.quoteVault, auth]), transfer(p.mint, c.baseDecimals, out, [p.baseVault, auth], [ata, w.address])]
    : [transfer(p.mint, c.baseDecimals, inAmt, [ata, w.address], [p.baseVault, auth]), transfer(c.quoteMint, c.quoteDecimals, out, [p.quoteVault, auth], [w.quoteAta, w.address])];
}

export function dammTrade(m: Market, p: PoolSim): EnhancedTransaction | null {
  const r = m.rng;
  const d = p.damm!;
  const buy = p.holders.length === 0 || r.int(1000) < 500;
  let sw: DammSwap | null;
  let wi: number;
  let ata: string;
  if (buy) {
    sw = d.state.buy(r.logUniform(d.state.reserveB / 20000n + 1n, d.state.reserveB / 200n + 2n));
    if (sw === null) return null;
    wi = r.int(m.wallets.length);
    ata = credit(p, wi, sw.output, r).ata;
    m.counts.dammBuys++;
  } else {
    const holding = p.holders[r.int(p.holders.length)]!;
    const amount = sellAmount(r, holding.amount);
    sw = d.state.sell(amount);
    if (sw === null) return null;
    debit(p, holding, amount);
    wi = holding.wallet;
    ata = holding.ata;
    m.counts.dammSells++;
  }
  const w = m.wallets[wi]!;
  const h = m.header(w.address);
  const ix = dammSwapIx(m.codecs, p, sw, w.address, w.quoteAta, ata, m.now);
  m.record({
    kind: "trade", signature: h.signature, ix: 2, venue: "damm_v2", pool: d.pool, config: "", mint: p.mint, quoteMint: p.config.quoteMint,
    side: buy ? "buy" : "sell", trader: w.address, amountQuote: buy ? sw.amountIn : sw.output, amountBase: buy ? sw.output : sw.amountIn,
    sqrtPrice: sw.nextSqrtPrice, quoteReserve: sw.reserveB, migrationThreshold: 0n, tradingFee: sw.claimingFee, protocolFee: sw.protocolFee, referralFee: 0n,
  });
  const c = p.config;
  const auth = m.codecs.damm.fixed("swap2", "pool_authority");
  const transfers = buy
    ? [transfer(c.quoteMint, c.quoteDecimals, sw.amountIn, [w.quoteAta, w.address], [d.vaultB, auth]), transfer(p.mint, c.baseDecimals, sw.output, [d.vaultA, auth], [ata, w.address])]
    : [transfer(p.mint, c.baseDecimals, sw.amountIn, [ata, w.address], [d.vaultA, auth]), transfer(c.quoteMint, c.quoteDecimals, sw.output, [d.vaultB, auth], [w.quoteAta, w.address])];
  return enhancedTransaction(h, [...computeBudget(), ix], { tokenTransfers: transfers });
}

/** Sell 10%..100% of a holding (all of it when that rounds to zero). */
function sellAmount(r: Rng, held: bigint): bigint {
  const a = (held * BigInt(r.range(10, 100))) / 100n;
  return a > 0n ? a : held;
}
