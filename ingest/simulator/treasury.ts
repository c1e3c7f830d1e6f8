/**
 * The platform treasury: the first config's fee claimer. It claims the partner's trading
 * fees (side-actions.ts claimStep) and spends what it claimed, per the tokenomics split:
 * System transfers to each coin's agent vault (the pool creator) and to its creator (who
 * paid for the pool's creation), in proportion to what that coin's fees brought in; and
 * buybacks of the platform token (the first pool's coin) on its pool, like any trader
 * (wrap, swap, unwrap), and burns of what they bought in the next transaction.
 */
import { createAta, NATIVE_MINT, rentExempt, systemTransfer, tokenAccountSize } from "./encode";
import type { EnhancedTransaction } from "./helius";
import type { Market, Tx } from "./market";
import type { Rng } from "./random";
import { burn } from "./side-actions";
import { dammSwap, dbcSwap, recordDammSwap, recordDbcSwap } from "./trades";
import type { ConfigSim, PoolSim, Wallet } from "./world";

export type TokenomicsSplit = { vault: number; creator: number; platformBurn: number };

export type TreasurySim = Wallet & {
  /** its platform-token ATA (created by its first buyback) */
  platformAta: string;
  platformAtaOpen: boolean;
  /** platform-token atoms bought and not burned yet */
  toBurn: bigint;
  split: TokenomicsSplit;
};

/** Below this, the treasury waits for more (a payout or buyback of dust is not worth a fee). */
export const MIN_SPEND = 1_000_000n;

export function treasuryFor(c: ConfigSim, r: Rng, split: TokenomicsSplit): TreasurySim {
  if (split.vault + split.creator + split.platformBurn !== 100) throw new Error("simulator: the split must sum to 100");
  return { address: c.feeClaimer, quoteAta: c.feeClaimerQuoteAta, platformAta: r.address(), platformAtaOpen: false, toBurn: 0n, split };
}

/** What a coin's claimed fees owe its vault and its creator, after what was already paid. */
export function owed(p: PoolSim, split: TokenomicsSplit): { vault: bigint; creator: bigint } {
  const t = p.treasury;
  return { vault: (t.claimed * BigInt(split.vault)) / 100n - t.paidVault, creator: (t.claimed * BigInt(split.creator)) / 100n - t.paidCreator };
}

/** The treasury pays a coin's vault and creator what it owes them; null when no coin is owed MIN_SPEND. */
export function payoutStep(m: Market): EnhancedTransaction | null {
  const tr = m.treasury;
  const n = m.pools.length;
  const start = m.rng.int(n);
  for (let i = 0; i < n; i++) {
    const p = m.pools[(start + i) % n]!;
    const o = owed(p, tr.split);
    if (o.vault + o.creator < MIN_SPEND) continue;
    const t = m.begin(tr.address, 5_000, false);
    m.counts.treasuryPayouts++;
    for (const [kind, recipient, lamports] of [["vault", p.creator, o.vault], ["creator", p.payer, o.creator]] as const) {
      if (lamports <= 0n) continue;
      m.record({ kind: "sol_transfer", signature: t.h.signature, ix: t.ixs.length, from: tr.address, to: recipient, lamports });
      t.ixs.push({ ...systemTransfer(tr.address, recipient, lamports), innerInstructions: [] });
      t.b.move(tr.address, recipient, lamports);
      t.nativeTransfers.push({ fromUserAccount: tr.address, toUserAccount: recipient, amount: Number(lamports) });
      m.ledger.payouts.push({ signature: t.h.signature, kind, mint: p.mint, recipient, lamports });
      if (kind === "vault") {
        p.treasury.paidVault += lamports;
        m.ledger.treasury.sentToVaultsLamports += lamports;
      } else {
        p.treasury.paidCreator += lamports;
        m.ledger.treasury.paidToCreatorsLamports += lamports;
      }
    }
    return m.finish(t, { type: "TRANSFER", source: "SYSTEM_PROGRAM", description: `${tr.address} paid the vault and the creator of ${p.mint}.` });
  }
  return null;
}

/** The buyback budget: the platform-burn share of everything claimed, minus what buybacks spent. */
export function buybackBudget(m: Market): bigint {
  const l = m.ledger.treasury;
  return (l.claimedLamports * BigInt(m.treasury.split.platformBurn)) / 100n - l.buybackLamports;
}

/**
 * The treasury spends its whole buyback budget on the platform token (a transaction of its
 * own, so its platform-token balance rises while its SOL falls by what the swap took);
 * the next transaction burns what it bought. Its platform-token ATA is opened by a
 * transaction of its own before the first buyback. Null while the budget is under
 * MIN_SPEND, the platform pool is not SOL-quoted, or its curve waits for migration.
 */
export function buybackStep(m: Market): EnhancedTransaction | null {
  const tr = m.treasury;
  const p = m.pools[0];
  const budget = buybackBudget(m);
  if (p === undefined || budget < MIN_SPEND || p.phase === "complete" || p.config.quoteMint !== NATIVE_MINT) return null;
  if (!tr.platformAtaOpen) {
    tr.platformAtaOpen = true;
    const t = m.begin(tr.address, 5_000, false);
    t.ixs.push(createAta(tr.address, tr.platformAta, tr.address, p.mint, p.config.baseTokenProgram, true));
    t.b.rent(tr.address, tr.platformAta, rentExempt(tokenAccountSize(p.config.baseTokenProgram)));
    return m.finish(t);
  }
  let out: bigint;
  let spent: bigint;
  let record: (signature: string, ix: number) => void;
  let swap: (t: Tx) => number;
  if (p.phase === "graduated") {
    const sw = p.damm!.state.buy(budget);
    if (sw === null) return null;
    out = sw.output;
    spent = sw.amountIn;
    swap = (t) => dammSwap(m, t, p, sw, tr, tr.platformAta, false);
    record = (sig, ix) => recordDammSwap(m, sig, ix, p, sw, tr.address);
  } else {
    const s = p.curve.buy(budget, m.now, false);
    if (s === null) return null;
    out = s.output;
    spent = s.includedIn; // a partial fill at the migration price takes less
    swap = (t) => dbcSwap(m, t, p, s, tr, tr.platformAta, false);
    record = (sig, ix) => recordDbcSwap(m, sig, ix, p, s, tr.address);
  }
  const t = m.begin(tr.address);
  m.counts.buybacks++;
  record(t.h.signature, swap(t));
  tr.toBurn += out;
  const l = m.ledger.treasury;
  l.buybackLamports += spent;
  l.buybackAtoms += out;
  m.ledger.buybacks.push({ signature: t.h.signature, lamports: spent, atoms: out });
  return m.finish(t, { description: `${tr.address} bought back ${out} atoms of ${p.mint} for ${spent} lamports.` });
}

/** The treasury burns the platform tokens its buyback bought (the transaction right after it). */
export function treasuryBurnStep(m: Market): EnhancedTransaction {
  const tr = m.treasury;
  const p = m.pools[0]!;
  const amount = tr.toBurn;
  tr.toBurn = 0n;
  const t = m.begin(tr.address, 5_000, false);
  m.counts.treasuryBurns++;
  burn(m, t, p, tr.platformAta, tr.address, amount);
  m.ledger.treasury.burnedAtoms += amount;
  m.ledger.burns.push({ signature: t.h.signature, atoms: amount });
  return m.finish(t, { type: "BURN", source: "SOLANA_PROGRAM_LIBRARY", description: `${tr.address} burned ${amount} atoms of ${p.mint}.` });
}
