/**
 * The platform in motion: pools are created on the given DBC configs, traded along the
 * real curve, complete, migrate to DAMM v2 and trade there; partners, creators and
 * position owners claim fees; holders burn. Each step is one transaction, in chain order.
 */
import type { Fact } from "../contract/facts";
import { sdkPoolConfig } from "./dbc";
import { migratedFeeBps } from "./damm";
import { createCodecs, TOKEN_PROGRAM_ID } from "./encode";
import type { EnhancedTransaction } from "./helius";
import { createPool, migrate } from "./lifecycle";
import { Rng, deriveSeed } from "./random";
import { burnStep, claimStep } from "./side-actions";
import { dammTrade, dbcTrade } from "./trades";
import { baseTokenProgram, pkString, quoteDecimalsFor, type ConfigSim, type PoolSim, type SimConfig, type Wallet } from "./world";

/** What the simulator meant each transaction to say: a Fact without slot/time/inner index. */
export type Intent = Fact extends infer F ? (F extends unknown ? Omit<F, "inner" | "slot" | "blockTime"> : never) : never;

export type SimCounts = {
  transactions: number;
  poolsCreated: number;
  firstBuys: number;
  dbcBuys: number;
  dbcSells: number;
  curveCompletions: number;
  migrations: number;
  dammBuys: number;
  dammSells: number;
  partnerClaims: number;
  creatorClaims: number;
  positionClaims: number;
  burns: number;
};

export type MarketOptions = {
  seed: number;
  configs: SimConfig[];
  /** unix seconds of the first transaction (default 1_760_000_000) */
  startTime?: number;
  /** chain time between consecutive transactions (default 0.4) */
  secondsPerTx?: number;
  /** pools to create in total (default 10) */
  pools?: number;
  /** of those, how many the first transactions create (default a quarter, at least one) */
  initialPools?: number;
  /** then, the chance per transaction of creating the next one (default 0.01) */
  poolCreationRate?: number;
  /** trader wallets (default 2000) */
  wallets?: number;
  /** also emit the legacy EvtSwap before EvtSwap2, as the program does (default true; false saves ~25% of generation time) */
  legacySwapEvent?: boolean;
  /** keep an Intent per fact, for tests (default false) */
  recordIntents?: boolean;
};

export class Market {
  readonly rng: Rng;
  readonly codecs = createCodecs();
  readonly configs: ConfigSim[];
  readonly pools: PoolSim[] = [];
  readonly wallets: Wallet[];
  readonly keeper: string;
  readonly counts: SimCounts = {
    transactions: 0, poolsCreated: 0, firstBuys: 0, dbcBuys: 0, dbcSells: 0, curveCompletions: 0, migrations: 0,
    dammBuys: 0, dammSells: 0, partnerClaims: 0, creatorClaims: 0, positionClaims: 0, burns: 0,
  };
  readonly intents: Intent[] | null;
  private readonly targetPools: number;
  private readonly initialPools: number;
  private readonly creationRate: number;
  private readonly msPerTx: number;
  private readonly startMs: number;
  private timeMs: number;
  private readonly migrations: { pool: PoolSim; due: number }[] = [];
  readonly legacySwapEvent: boolean;

  constructor(o: MarketOptions) {
    if (o.configs.length === 0) throw new Error("simulator: at least one config is needed");
    this.rng = new Rng(o.seed);
    this.targetPools = Math.max(1, o.pools ?? 10);
    this.initialPools = Math.min(this.targetPools, Math.max(1, o.initialPools ?? Math.ceil(this.targetPools / 4)));
    this.creationRate = o.poolCreationRate ?? 0.01;
    this.msPerTx = Math.max(1, Math.round((o.secondsPerTx ?? 0.4) * 1000));
    this.startMs = (o.startTime ?? 1_760_000_000) * 1000;
    this.timeMs = this.startMs;
    this.intents = o.recordIntents ? [] : null;
    this.legacySwapEvent = o.legacySwapEvent ?? true;
    const wrng = new Rng(deriveSeed(o.seed, 1));
    this.wallets = Array.from({ length: Math.max(2, o.wallets ?? 2000) }, () => ({ address: wrng.address(), quoteAta: wrng.address() }));
    this.keeper = wrng.address();
    this.configs = o.configs.map((c) => this.configSim(c, wrng));
  }

  private configSim(c: SimConfig, r: Rng): ConfigSim {
    const cfg = sdkPoolConfig(c.poolConfig);
    const quoteMint = pkString(cfg.quoteMint);
    const option = cfg.migrationFeeOption;
    const partner = cfg.partnerLiquidityPercentage + cfg.partnerPermanentLockedLiquidityPercentage + (cfg.partnerLiquidityVestingInfo?.vestingPercentage ?? 0);
    const creator = cfg.creatorLiquidityPercentage + cfg.creatorPermanentLockedLiquidityPercentage + (cfg.creatorLiquidityVestingInfo?.vestingPercentage ?? 0);
    return {
      address: c.address,
      role: c.role,
      cfg,
      quoteMint,
      quoteDecimals: quoteDecimalsFor(quoteMint, c.quoteDecimals),
      baseDecimals: cfg.tokenDecimal,
      tokenType: cfg.tokenType,
      baseTokenProgram: baseTokenProgram(cfg.tokenType),
      quoteTokenProgram: c.quoteTokenProgram ?? TOKEN_PROGRAM_ID,
      feeClaimer: pkString(cfg.feeClaimer),
      feeClaimerQuoteAta: r.address(),
      dammConfig: r.address(),
      dammFeeNumerator: BigInt(migratedFeeBps(option, cfg.migratedPoolFeeBps)) * 100_000n,
      dammCollectFeeMode: option === 6 ? cfg.migratedCollectFeeMode : 1,
      partnerLiquidityPct: partner + creator === 0 ? 100 : partner,
      creatorLiquidityPct: creator,
    };
  }

  get now(): number {
    return Math.floor(this.timeMs / 1000);
  }

  /** One transaction. */
  step(): EnhancedTransaction {
    const out = this.choose();
    this.counts.transactions++;
    this.timeMs += this.msPerTx;
    return out;
  }

  private choose(): EnhancedTransaction {
    const r = this.rng;
    const n = this.pools.length;
    if (n < this.targetPools && (n < this.initialPools || r.chance(this.creationRate))) return createPool(this);
    const head = this.migrations[0];
    if (head !== undefined && head.due <= this.counts.transactions) return migrate(this, this.migrations.shift()!.pool);
    const roll = r.int(1000);
    if (roll < 12) return claimStep(this);
    if (roll < 20) {
      const burn = burnStep(this);
      if (burn !== null) return burn;
    }
    const p = this.pickPool();
    if (p === null) return this.migrations.length > 0 ? migrate(this, this.migrations.shift()!.pool) : createPool(this);
    return (p.phase === "graduated" ? dammTrade(this, p) : dbcTrade(this, p)) ?? claimStep(this);
  }

  /** Activity-weighted pool choice among tradeable pools (rejection sampling on weight). */
  private pickPool(): PoolSim | null {
    const n = this.pools.length;
    for (let i = 0; i < 64; i++) {
      const p = this.pools[this.rng.int(n)]!;
      if (p.phase !== "complete" && this.rng.int(256) < p.weight) return p;
    }
    const start = this.rng.int(n);
    for (let i = 0; i < n; i++) {
      const p = this.pools[(start + i) % n]!;
      if (p.phase !== "complete") return p;
    }
    return null;
  }

  header(feePayer: string, fee = 25_000) {
    const elapsed = this.timeMs - this.startMs;
    return { signature: this.rng.signature(), slot: 330_000_000 + Math.floor(elapsed / 400), timestamp: this.now, feePayer, fee };
  }

  record(i: Intent): void {
    this.intents?.push(i);
  }


  /** A completed curve migrates 2 to 30 transactions later. */
  scheduleMigration(p: PoolSim): void {
    this.migrations.push({ pool: p, due: this.counts.transactions + this.rng.range(2, 30) });
  }
}
