/**
 * The chain data a confirmed Launch API transaction produces: the Helius enhanced-webhook
 * element of its DBC pool creation (`initialize_virtual_pool_with_spl_token` +
 * `EvtInitializePool`), for GIVEN keys (mint, pool, config, creator = the agent's vault,
 * the pool creator; payer = the user's wallet), and then buys on that pool along the real
 * curve. Built with the simulator's own encoders (ix-dbc.ts, lifecycle.ts' account
 * derivations, helius.ts, encode.ts), so it decodes exactly as the simulator's pools do.
 * Tests use it to play "the chain data arrives" for a launch; the simulator does not use it.
 */
import { deriveDbcPoolAddress, deriveDbcTokenVaultAddress, deriveMintMetadata } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { PublicKey } from "@solana/web3.js";
import { DbcCurve } from "./dbc";
import { TxBalances } from "./balances";
import { computeBudget } from "./encode";
import { enhancedTransaction, type EnhancedTransaction } from "./helius";
import { createPoolIx } from "./ix-dbc";
import { poolCreationBalances } from "./lifecycle";
import { Market, type Tx } from "./market";
import { dbcSwap } from "./trades";
import { credit, type PoolSim, type SimConfig } from "./world";

export type LaunchedPoolKeys = {
  /** the DBC config the launch used, with its decoded PoolConfig (e.g. fixtureSimConfigs' or decodeFixturePoolConfig()) */
  config: SimConfig;
  mint: string;
  /** must be the DBC pool PDA of (quote mint, mint, config), as the program requires */
  pool: string;
  /** the pool creator: the launch's vault */
  creator: string;
  /** who paid and signed: the user's wallet */
  payer: string;
  name: string;
  symbol: string;
  uri: string;
};

export type LaunchedPool = {
  /** the pool's creation (call once, first) */
  creation(): EnhancedTransaction;
  /** a DBC swap2 buy of `lamports` quote atoms by `trader` (default: the payer); null if the curve refuses it */
  buy(lamports: bigint, trader?: string): EnhancedTransaction | null;
};

/**
 * Transactions on one launched pool, in chain order: each gets the next slot and second,
 * from `slot` (default 340_000_000) and `timestamp` (unix s, default now). Signatures and
 * token accounts come from `seed`, by default 32 bits of the mint, so pools of different
 * mints do not repeat each other's signatures (the pipeline stores a signature once).
 */
export function launchedPool(keys: LaunchedPoolKeys, o: { seed?: number; slot?: number; timestamp?: number } = {}): LaunchedPool {
  const mintKey = new PublicKey(keys.mint);
  const m = new Market({ seed: o.seed ?? Buffer.from(mintKey.toBytes()).readUInt32LE(0), configs: [keys.config], wallets: 2 });
  const c = m.configs[0]!;
  const poolKey = new PublicKey(keys.pool);
  const derived = deriveDbcPoolAddress(new PublicKey(c.quoteMint), mintKey, new PublicKey(c.address)).toBase58();
  if (derived !== keys.pool) throw new Error(`launchedPool: ${keys.pool} is not the DBC pool of mint ${keys.mint} on config ${c.address} (${derived})`);
  let slot = o.slot ?? 340_000_000;
  let now = o.timestamp ?? Math.floor(Date.now() / 1000);
  const activation = now;
  const p: PoolSim = {
    index: 0,
    config: c,
    mint: keys.mint,
    pool: keys.pool,
    baseVault: deriveDbcTokenVaultAddress(poolKey, mintKey).toBase58(),
    quoteVault: deriveDbcTokenVaultAddress(poolKey, new PublicKey(c.quoteMint)).toBase58(),
    metadata: deriveMintMetadata(mintKey).toBase58(),
    creator: keys.creator,
    payer: keys.payer,
    creatorBaseAta: m.rng.address(),
    creatorQuoteAta: m.rng.address(),
    partnerBaseAta: m.rng.address(),
    name: keys.name,
    symbol: keys.symbol,
    uri: keys.uri,
    weight: 1,
    buyPermille: 500,
    curve: new DbcCurve(c.cfg, activation),
    holdings: new Map(),
    holders: [],
    phase: "curve",
    partnerBaseAtaOpen: false,
    creatorBaseAtaOpen: false,
    treasury: { claimed: 0n, paidVault: 0n, paidCreator: 0n },
  };
  const begin = (feePayer: string): Tx => {
    const h = { signature: m.rng.signature(), slot: slot++, timestamp: now++, feePayer, fee: 25_000 };
    return { h, b: new TxBalances(feePayer, h.fee), ixs: computeBudget(), tokenTransfers: [], nativeTransfers: [] };
  };
  const finish = (t: Tx) => enhancedTransaction(t.h, t.ixs, t.b.accountData(null), { tokenTransfers: t.tokenTransfers, nativeTransfers: t.nativeTransfers });
  const traders = new Map<string, { index: number; address: string; quoteAta: string }>();

  return {
    creation() {
      const t = begin(keys.payer);
      t.ixs.push(createPoolIx(m.codecs, p, keys.payer, activation));
      poolCreationBalances(m, t.b, p, keys.payer);
      return finish(t);
    },
    buy(lamports, trader = keys.payer) {
      const t = begin(trader);
      const s = p.curve.buy(lamports, t.h.timestamp, false);
      if (s === null) return null;
      let w = traders.get(trader);
      if (!w) traders.set(trader, (w = { index: traders.size, address: trader, quoteAta: m.rng.address() }));
      const opens = !p.holdings.has(w.index);
      const holding = credit(p, w.index, s.output, m.rng);
      dbcSwap(m, t, p, s, w, holding.ata, opens, t.h.timestamp);
      return finish(t);
    },
  };
}
