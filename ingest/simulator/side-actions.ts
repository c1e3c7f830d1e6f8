/**
 * The occasional transactions between trades: fee claims (DBC partner and creator,
 * DAMM v2 position owners), SPL Token burns by holders and holders sending coins to
 * other wallets (some of which never traded).
 */
import { createAta, NATIVE_MINT, rentExempt, tokenAccountSize, tokenBurn, tokenCloseAccount, tokenTransfer, tokenTransferChecked, TOKEN_2022_PROGRAM_ID } from "./encode";
import { transfer, type EnhancedTransaction } from "./helius";
import type { Market, Tx } from "./market";
import { dbcClaimIx } from "./ix-dbc";
import { positionClaimIx } from "./ix-damm";
import { credit, debit, type PoolSim } from "./world";

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
    const t = m.begin(pos.owner, 5_000, false);
    m.counts.positionClaims++;
    const ix = claimAround(m, t, p, partner, pos.owner, baseAta, quoteAta, feeA, feeB, [d.vaultA, d.vaultB, m.codecs.damm.fixed("claim_position_fee", "pool_authority")], () =>
      positionClaimIx(m.codecs, p, pos, baseAta, quoteAta, feeA, feeB),
    );
    m.record({ kind: "fee_claim", signature: t.h.signature, ix, venue: "damm_v2", role: "position", pool: d.pool, mint: p.mint, claimer: pos.owner, baseAmount: feeA, quoteAmount: feeB });
    return m.finish(t);
  }
  const role = r.chance(0.5) ? "partner" : "creator";
  const [base, quote] = role === "partner" ? p.curve.claimPartner() : p.curve.claimCreator();
  const claimer = role === "partner" ? c.feeClaimer : p.creator;
  const [baseAta, quoteAta] = role === "partner" ? [p.partnerBaseAta, c.feeClaimerQuoteAta] : [p.creatorBaseAta, p.creatorQuoteAta];
  const t = m.begin(claimer, 5_000, false);
  if (role === "partner") m.counts.partnerClaims++;
  else m.counts.creatorClaims++;
  const ix = claimAround(m, t, p, role === "partner", claimer, baseAta, quoteAta, base, quote, [p.baseVault, p.quoteVault, m.codecs.dbc.fixed("claim_trading_fee", "pool_authority")], () =>
    dbcClaimIx(m.codecs, p, role, base, quote),
  );
  m.record({ kind: "fee_claim", signature: t.h.signature, ix, venue: "dbc", role, pool: p.pool, mint: p.mint, claimer, baseAmount: base, quoteAmount: quote });
  return m.finish(t);
}

/**
 * The claimer receives the quote in a wrapped-SOL ATA created for the claim and closed
 * after it (so SOL lands in its wallet), and the coin in its coin ATA, created by its first
 * claim. A claim by the treasury counts as claimed for its payouts. Returns the claim's index.
 */
function claimAround(
  m: Market, t: Tx, p: PoolSim, partner: boolean, claimer: string, baseAta: string, quoteAta: string, base: bigint, quote: bigint,
  [baseVault, quoteVault, auth]: [string, string, string], claimIx: () => Tx["ixs"][number],
): number {
  const c = p.config;
  const { b, ixs } = t;
  const sol = c.quoteMint === NATIVE_MINT;
  const open = partner ? p.partnerBaseAtaOpen : p.creatorBaseAtaOpen;
  if (sol) ixs.push(createAta(claimer, quoteAta, claimer, c.quoteMint, c.quoteTokenProgram, true));
  if (!open) {
    ixs.push(createAta(claimer, baseAta, claimer, p.mint, c.baseTokenProgram, true));
    b.rent(claimer, baseAta, rentExempt(tokenAccountSize(c.baseTokenProgram)));
    if (partner) p.partnerBaseAtaOpen = true;
    else p.creatorBaseAtaOpen = true;
  }
  const at = ixs.length;
  ixs.push(claimIx());
  if (sol) ixs.push({ ...tokenCloseAccount(quoteAta, claimer, claimer, c.quoteTokenProgram), innerInstructions: [] });
  b.token(baseVault, p.mint, auth, c.baseDecimals, -base);
  b.token(baseAta, p.mint, claimer, c.baseDecimals, base);
  b.token(quoteVault, c.quoteMint, auth, c.quoteDecimals, -quote, sol);
  if (sol) b.native(claimer, quote);
  else b.token(quoteAta, c.quoteMint, claimer, c.quoteDecimals, quote);
  if (base > 0n) t.tokenTransfers.push(transfer(p.mint, c.baseDecimals, base, [baseVault, auth], [baseAta, claimer]));
  if (quote > 0n) t.tokenTransfers.push(transfer(c.quoteMint, c.quoteDecimals, quote, [quoteVault, auth], [quoteAta, claimer]));
  if (claimer === m.treasury.address && sol) {
    p.treasury.claimed += quote;
    m.ledger.treasury.claimedLamports += quote;
  }
  return at;
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
    const t = m.begin(owner, 5_000, false);
    m.counts.burns++;
    burn(m, t, p, holding.ata, owner, amount);
    return m.finish(t, { type: "BURN", source: "SOLANA_PROGRAM_LIBRARY", description: `${owner} burned ${amount} atoms of ${p.mint}.` });
  }
  return null;
}

/** An SPL Token (or Token-2022) Burn of `amount` from `account`: the supply shrinks, no account receives it. */
export function burn(m: Market, t: Tx, p: PoolSim, account: string, owner: string, amount: bigint): void {
  const c = p.config;
  m.record({ kind: "burn", signature: t.h.signature, ix: t.ixs.length, mint: p.mint, account, authority: owner, amount, program: c.tokenType === 1 ? "token-2022" : "spl-token" });
  t.ixs.push({ ...tokenBurn(account, p.mint, owner, amount, c.baseTokenProgram), innerInstructions: [] });
  t.b.token(account, p.mint, owner, c.baseDecimals, -amount);
}

/**
 * A holder sends 1%..100% of its coins to another wallet, a third of the time one that never
 * traded; the sender creates the recipient's ATA (and pays its rent) when it has none. SPL
 * Token `transfer` or `transferChecked` (always the latter on Token-2022). Null when nobody holds.
 */
export function holderTransferStep(m: Market): EnhancedTransaction | null {
  const r = m.rng;
  for (let attempt = 0; attempt < 8; attempt++) {
    const p = m.pools[r.int(m.pools.length)]!;
    if (p.holders.length === 0) continue;
    const from = p.holders[r.int(p.holders.length)]!;
    const to = r.chance(1 / 3) ? m.traders + r.int(m.wallets.length - m.traders) : r.int(m.traders);
    if (to === from.wallet) continue;
    const amount = (from.amount * BigInt(r.range(1, 100))) / 100n || from.amount;
    const c = p.config;
    const sender = m.wallets[from.wallet]!.address;
    const recipient = m.wallets[to]!.address;
    const opens = !p.holdings.has(to);
    debit(p, from, amount);
    const dest = credit(p, to, amount, r);
    const checked = c.baseTokenProgram === TOKEN_2022_PROGRAM_ID || r.chance(0.5);
    const t = m.begin(sender, 5_000, false);
    m.counts.holderTransfers++;
    if (opens) {
      t.ixs.push(createAta(sender, dest.ata, recipient, p.mint, c.baseTokenProgram, true));
      t.b.rent(sender, dest.ata, rentExempt(tokenAccountSize(c.baseTokenProgram)));
    }
    const ix = checked
      ? tokenTransferChecked(from.ata, p.mint, dest.ata, sender, amount, c.baseDecimals, c.baseTokenProgram)
      : tokenTransfer(from.ata, dest.ata, sender, amount, c.baseTokenProgram);
    t.ixs.push({ ...ix, innerInstructions: [] });
    t.b.token(from.ata, p.mint, sender, c.baseDecimals, -amount);
    t.b.token(dest.ata, p.mint, recipient, c.baseDecimals, amount);
    t.tokenTransfers.push(transfer(p.mint, c.baseDecimals, amount, [from.ata, sender], [dest.ata, recipient]));
    return m.finish(t, { type: "TRANSFER", source: "SOLANA_PROGRAM_LIBRARY", description: `${sender} transferred ${amount} atoms of ${p.mint} to ${recipient}.` });
  }
  return null;
}
