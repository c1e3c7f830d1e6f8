/**
 * A pool's life events: creation on a DBC config (with an optional first buy in the same
 * transaction) and migration to DAMM v2 once its curve is complete.
 */
import {
  deriveDbcPoolAddress,
  deriveDbcTokenVaultAddress,
  deriveMintMetadata,
  deriveDammV2PoolAddress,
  deriveDammV2TokenVaultAddress,
  deriveDammV2MigrationMetadataAddress,
  derivePositionAddress,
  derivePositionNftAccount,
} from "@meteora-ag/dynamic-bonding-curve-sdk";
import { PublicKey } from "@solana/web3.js";
import { DbcCurve } from "./dbc";
import { DammPool, type DammPosition } from "./damm";
import type { TxBalances } from "./balances";
import { NATIVE_MINT, rentExempt, tokenAccountSize } from "./encode";
import type { EnhancedTransaction } from "./helius";
import { createPoolIx } from "./ix-dbc";
import { migrationIx } from "./ix-damm";
import type { Market } from "./market";
import { dbcSwap, recordDbcSwap } from "./trades";
import { coinMetadata, credit, type PoolSim } from "./world";

// Account sizes of what a pool creation and a migration open (Anchor account sizes, discriminator included).
const MINT_SIZE = 82;
const METADATA_SIZE = 679; // Metaplex MAX_METADATA_LEN
const VIRTUAL_POOL_SIZE = 424;
const DAMM_POOL_SIZE = 1112;
const DAMM_POSITION_SIZE = 408;

/** What initialize_virtual_pool does to balances: the payer funds the new accounts, the base vault receives the supply. */
export function poolCreationBalances(m: Market, b: TxBalances, p: PoolSim, payer: string): void {
  const c = p.config;
  const auth = m.codecs.dbc.fixed("swap2", "pool_authority");
  b.rent(payer, p.mint, rentExempt(MINT_SIZE));
  b.rent(payer, p.pool, rentExempt(VIRTUAL_POOL_SIZE));
  b.rent(payer, p.baseVault, rentExempt(tokenAccountSize(c.baseTokenProgram)));
  b.rent(payer, p.quoteVault, rentExempt(tokenAccountSize(c.quoteTokenProgram)));
  b.rent(payer, p.metadata, rentExempt(METADATA_SIZE));
  b.token(p.baseVault, p.mint, auth, c.baseDecimals, p.curve.baseReserve);
}

export function createPool(m: Market): EnhancedTransaction {
  const r = m.rng;
  const config = m.configs[m.pools.length % m.configs.length]!;
  const index = m.pools.length;
  // the first pool is the platform token's (its mint is known before it exists)
  const drawn = r.address();
  const mint = index === 0 ? m.platformTokenMint : drawn;
  const mintKey = new PublicKey(mint);
  const poolKey = deriveDbcPoolAddress(new PublicKey(config.quoteMint), mintKey, new PublicKey(config.address));
  const meta = coinMetadata(r, index);
  const p: PoolSim = {
    index,
    config,
    mint,
    pool: poolKey.toBase58(),
    baseVault: deriveDbcTokenVaultAddress(poolKey, mintKey).toBase58(),
    quoteVault: deriveDbcTokenVaultAddress(poolKey, new PublicKey(config.quoteMint)).toBase58(),
    metadata: deriveMintMetadata(mintKey).toBase58(),
    creator: r.address(),
    payer: "",
    creatorBaseAta: r.address(),
    creatorQuoteAta: r.address(),
    partnerBaseAta: r.address(),
    ...meta,
    weight: 1 + r.int(16) ** 2,
    buyPermille: r.chance(0.3) ? 800 : r.range(470, 600),
    curve: new DbcCurve(config.cfg, m.now),
    holdings: new Map(),
    holders: [],
    phase: "curve",
    partnerBaseAtaOpen: false,
    creatorBaseAtaOpen: false,
    treasury: { claimed: 0n, paidVault: 0n, paidCreator: 0n },
  };
  m.pools.push(p);
  m.counts.poolsCreated++;
  const payerIdx = r.int(m.traders);
  const payer = m.wallets[payerIdx]!;
  p.payer = payer.address;
  const t = m.begin(payer.address);
  t.ixs.push(createPoolIx(m.codecs, p, payer.address, m.now));
  poolCreationBalances(m, t.b, p, payer.address);
  m.record({
    kind: "pool_created", signature: t.h.signature, ix: 2, pool: p.pool, config: config.address, creator: p.creator, mint,
    quoteMint: config.quoteMint, poolType: config.tokenType, name: p.name, symbol: p.symbol, uri: p.uri, payer: payer.address,
  });
  if (r.chance(0.5)) {
    const th = p.curve.threshold;
    const s = p.curve.buy(r.logUniform(th / 1000n + 1n, th / 50n + 2n), m.now, true);
    if (s !== null) {
      m.counts.firstBuys++;
      const holding = credit(p, payerIdx, s.output, r);
      const ix = dbcSwap(m, t, p, s, payer, holding.ata, true);
      recordDbcSwap(m, t.h.signature, ix, p, s, payer.address);
    }
  }
  return m.finish(t);
}

export function migrate(m: Market, p: PoolSim): EnhancedTransaction {
  const r = m.rng;
  const c = p.config;
  const cfg = c.cfg;
  const mintKey = new PublicKey(p.mint);
  const quoteKey = new PublicKey(c.quoteMint);
  const dammPoolKey = deriveDammV2PoolAddress(new PublicKey(c.dammConfig), mintKey, quoteKey);
  const sqrtPrice = BigInt(cfg.migrationSqrtPrice.toString());
  const quote = (p.curve.threshold * BigInt(100 - cfg.migrationFeePercentage)) / 100n;
  const liquidity = DammPool.liquidityFor(BigInt(cfg.migrationBaseThreshold.toString()), quote, sqrtPrice);
  const owners: [string, number][] = [];
  if (c.partnerLiquidityPct > 0) owners.push([c.feeClaimer, c.partnerLiquidityPct]);
  if (c.creatorLiquidityPct > 0) owners.push([p.creator, c.creatorLiquidityPct]);
  const total = BigInt(c.partnerLiquidityPct + c.creatorLiquidityPct);
  const firstL = owners.length === 1 ? liquidity : (liquidity * BigInt(owners[0]![1])) / total;
  const positions: DammPosition[] = owners.map(([owner], i) => {
    const nftMint = new PublicKey(r.bytes(32));
    return {
      address: derivePositionAddress(nftMint).toBase58(),
      nftMint: nftMint.toBase58(),
      nftAccount: derivePositionNftAccount(nftMint).toBase58(),
      owner,
      liquidity: i === 0 ? firstL : liquidity - firstL,
      feeA: 0n,
      feeB: 0n,
    };
  });
  const dammPool = dammPoolKey.toBase58();
  const vaultA = deriveDammV2TokenVaultAddress(dammPoolKey, mintKey).toBase58();
  const vaultB = deriveDammV2TokenVaultAddress(dammPoolKey, quoteKey).toBase58();
  const state = new DammPool(sqrtPrice, liquidity, positions, c.dammFeeNumerator, c.dammCollectFeeMode);
  p.damm = { pool: dammPool, vaultA, vaultB, state };
  p.phase = "graduated";
  m.counts.migrations++;
  const t = m.begin(m.keeper);
  const migrationMetadata = deriveDammV2MigrationMetadataAddress(new PublicKey(p.pool)).toBase58();
  t.ixs.push(migrationIx(m.codecs, p, { dammPool, migrationMetadata, vaultA, vaultB, payer: m.keeper, positions }, sqrtPrice, m.now));
  m.record({ kind: "migration", signature: t.h.signature, ix: 2, pool: p.pool, config: c.address, mint: p.mint, quoteMint: c.quoteMint, dammPool, sqrtPrice });
  // The curve's vaults deposit the pool's reserves into the new DAMM v2 vaults; the keeper
  // funds the pool, position and vault accounts (the position NFT mints and accounts are not modeled).
  const b = t.b;
  const dbcAuth = m.codecs.dbc.fixed("swap2", "pool_authority");
  const dammAuth = m.codecs.damm.fixed("swap2", "pool_authority");
  const sol = c.quoteMint === NATIVE_MINT;
  b.rent(m.keeper, dammPool, rentExempt(DAMM_POOL_SIZE));
  for (const pos of positions) b.rent(m.keeper, pos.address, rentExempt(DAMM_POSITION_SIZE));
  b.rent(m.keeper, vaultA, rentExempt(tokenAccountSize(c.baseTokenProgram)));
  b.rent(m.keeper, vaultB, rentExempt(tokenAccountSize(c.quoteTokenProgram)));
  b.token(p.baseVault, p.mint, dbcAuth, c.baseDecimals, -state.reserveA);
  b.token(vaultA, p.mint, dammAuth, c.baseDecimals, state.reserveA);
  b.token(p.quoteVault, c.quoteMint, dbcAuth, c.quoteDecimals, -state.reserveB, sol);
  b.token(vaultB, c.quoteMint, dammAuth, c.quoteDecimals, state.reserveB, sol);
  p.migratedBase = state.reserveA;
  p.migratedQuote = state.reserveB;
  return m.finish(t);
}
