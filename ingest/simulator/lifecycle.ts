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
import { computeBudget, type SimOuterInstruction } from "./encode";
import { enhancedTransaction, type EnhancedTransaction, type TokenTransfer } from "./helius";
import { createPoolIx, dbcSwapIx } from "./ix-dbc";
import { migrationIx } from "./ix-damm";
import type { Market } from "./market";
import { dbcTransfersFor, recordDbcSwap } from "./trades";
import { coinMetadata, credit, type PoolSim } from "./world";

export function createPool(m: Market): EnhancedTransaction {
  const r = m.rng;
  const config = m.configs[m.pools.length % m.configs.length]!;
  const index = m.pools.length;
  const mint = r.address();
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
  };
  m.pools.push(p);
  m.counts.poolsCreated++;
  const payerIdx = r.int(m.wallets.length);
  const payer = m.wallets[payerIdx]!;
  const h = m.header(payer.address);
  const ixs: SimOuterInstruction[] = [...computeBudget(), createPoolIx(m.codecs, p, payer.address, m.now)];
  m.record({
    kind: "pool_created", signature: h.signature, ix: 2, pool: p.pool, config: config.address, creator: p.creator, mint,
    quoteMint: config.quoteMint, poolType: config.tokenType, name: p.name, symbol: p.symbol, uri: p.uri, payer: payer.address,
  });
  const transfers: TokenTransfer[] = [];
  if (r.chance(0.5)) {
    const th = p.curve.threshold;
    const s = p.curve.buy(r.logUniform(th / 1000n + 1n, th / 50n + 2n), m.now, true);
    if (s !== null) {
      m.counts.firstBuys++;
      const holding = credit(p, payerIdx, s.output, r);
      ixs.push(dbcSwapIx(m.codecs, p, s, payer.address, payer.quoteAta, holding.ata, m.now, m.legacySwapEvent));
      transfers.push(...dbcTransfersFor(m, p, s, payer, holding.ata));
      recordDbcSwap(m, h.signature, ixs.length - 1, p, s, payer.address);
    }
  }
  return enhancedTransaction(h, ixs, { tokenTransfers: transfers });
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
  const h = m.header(m.keeper);
  const migrationMetadata = deriveDammV2MigrationMetadataAddress(new PublicKey(p.pool)).toBase58();
  const ix = migrationIx(m.codecs, p, { dammPool, migrationMetadata, vaultA, vaultB, payer: m.keeper, positions }, sqrtPrice, m.now);
  m.record({ kind: "migration", signature: h.signature, ix: 2, pool: p.pool, config: c.address, mint: p.mint, quoteMint: c.quoteMint, dammPool, sqrtPrice });
  return enhancedTransaction(h, [...computeBudget(), ix]);
}
