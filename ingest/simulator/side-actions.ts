/**
 * The occasional transactions between trades: fee claims (DBC partner and creator,
 * DAMM v2 position owners) and SPL Token burns by holders.
 */
import { tokenBurn } from "./encode";
import { enhancedTransaction, transfer, type EnhancedTransaction, type TokenTransfer } from "./helius";
import type { Market } from "./market";
import { dbcClaimIx } from "./ix-dbc";
import { positionClaimIx } from "./ix-damm";
import { debit } from "./world";

/** A fee claim on a random pool; always possible (a claim of nothing is still a valid claim). */
export function claimStep(m: Market): EnhancedTransaction {
  const r = m.rng;
  const p = m.pools[r.int(m.pools.length)]!;
  const c = p.config;
  if (p.phase === "graduated" && r.chance(0.5)) {
    const d = p.damm!;
    const pos = r.pick(d.state.positions);
    const [feeA, feeB] = d.state.claim(pos);
    const partner = pos.owner === c.feeClaimer;
    const [baseAta, quoteAta] = partner ? [p.partnerBaseAta, c.feeClaimerQuoteAta] : [p.creatorBaseAta, p.creatorQuoteAta];
    const h = m.header(pos.owner, 5_000);
    m.counts.positionClaims++;
    m.record({ kind: "fee_claim", signature: h.signature, ix: 0, venue: "damm_v2", role: "position", pool: d.pool, mint: p.mint, claimer: pos.owner, baseAmount: feeA, quoteAmount: feeB });
    const auth = m.codecs.damm.fixed("claim_position_fee", "pool_authority");
    const transfers = claimTransfers(p.mint, c.baseDecimals, feeA, [d.vaultA, auth], [baseAta, pos.owner], c.quoteMint, c.quoteDecimals, feeB, [d.vaultB, auth], [quoteAta, pos.owner]);
    return enhancedTransaction(h, [positionClaimIx(m.codecs, p, pos, baseAta, quoteAta, feeA, feeB)], { tokenTransfers: transfers });
  }
  const role = r.chance(0.5) ? "partner" : "creator";
  const [base, quote] = role === "partner" ? p.curve.claimPartner() : p.curve.claimCreator();
  const claimer = role === "partner" ? c.feeClaimer : p.creator;
  const [baseAta, quoteAta] = role === "partner" ? [p.partnerBaseAta, c.feeClaimerQuoteAta] : [p.creatorBaseAta, p.creatorQuoteAta];
  const h = m.header(claimer, 5_000);
  if (role === "partner") m.counts.partnerClaims++;
  else m.counts.creatorClaims++;
  m.record({ kind: "fee_claim", signature: h.signature, ix: 0, venue: "dbc", role, pool: p.pool, mint: p.mint, claimer, baseAmount: base, quoteAmount: quote });
  const auth = m.codecs.dbc.fixed("claim_trading_fee", "pool_authority");
  const transfers = claimTransfers(p.mint, c.baseDecimals, base, [p.baseVault, auth], [baseAta, claimer], c.quoteMint, c.quoteDecimals, quote, [p.quoteVault, auth], [quoteAta, claimer]);
  return enhancedTransaction(h, [dbcClaimIx(m.codecs, p, role, base, quote)], { tokenTransfers: transfers });
}

/** A holder of a random coin burns 1%..50% of it; null when nobody holds anything. */
export function burnStep(m: Market): EnhancedTransaction | null {
  const r = m.rng;
  for (let attempt = 0; attempt < 8; attempt++) {
    const p = m.pools[r.int(m.pools.length)]!;
    if (p.holders.length === 0) continue;
    const holding = p.holders[r.int(p.holders.length)]!;
    const part = (holding.amount * BigInt(r.range(1, 50))) / 100n;
    const amount = part > 0n ? part : holding.amount;
    debit(p, holding, amount);
    const owner = m.wallets[holding.wallet]!.address;
    const h = m.header(owner, 5_000);
    m.counts.burns++;
    m.record({ kind: "burn", signature: h.signature, ix: 0, mint: p.mint, account: holding.ata, authority: owner, amount, program: p.config.tokenType === 1 ? "token-2022" : "spl-token" });
    const ix = { ...tokenBurn(holding.ata, p.mint, owner, amount, p.config.baseTokenProgram), innerInstructions: [] };
    return enhancedTransaction(h, [ix], { type: "BURN", source: "SOLANA_PROGRAM_LIBRARY", description: `${owner} burned ${amount} atoms of ${p.mint}.` });
  }
  return null;
}

function claimTransfers(
  mintA: string, decA: number, a: bigint, fromA: [string, string], toA: [string, string],
  mintB: string, decB: number, b: bigint, fromB: [string, string], toB: [string, string],
): TokenTransfer[] {
  const out: TokenTransfer[] = [];
  if (a > 0n) out.push(transfer(mintA, decA, a, fromA, toA));
  if (b > 0n) out.push(transfer(mintB, decB, b, fromB, toB));
  return out;
}
