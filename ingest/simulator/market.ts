/**
 * The platform in motion: pools are created on the given DBC configs, traded along the
 * real curve, complete, migrate to DAMM v2 and trade there; partners, creators and
 * position owners claim fees; holders burn and send coins to other wallets; the treasury
 * pays agents' vaults and creators and buys back and burns the platform token. Each step
 * is one transaction, in chain order.
 */
import type { Fact } from "../contract/facts";
import { TxBalances } from "./balances";
import { sdkPoolConfig } from "./dbc";
import { migratedFeeBps } from "./damm";
import { computeBudget, createCodecs, TOKEN_PROGRAM_ID, type SimOuterInstruction } from "./encode";
import { enhancedTransaction, type AccountData, type EnhancedTransaction, type NativeTransfer, type TokenTransfer, type TxExtra, type TxHeader } from "./helius";
import { Ledger } from "./ledger";
import { createPool, migrate } from "./lifecycle";
import { Rng, deriveSeed } from "./random";
import { burnStep, claimStep, holderTransferStep } from "./side-actions";
import { dammTrade, dbcTrade } from "./trades";
import { buybackStep, payoutStep, treasuryBurnStep, treasuryFor, type TokenomicsSplit, type TreasurySim } from "./treasury";
import { baseTokenProgram, pkString, quoteDecimalsFor, type ConfigSim, type PoolSim, type SimConfig, type Wallet } from "./world";

/** One transaction being built: its header, balance changes, outer instructions and transfer summaries. */
export type Tx = { h: TxHeader; b: TxBalances; ixs: SimOuterInstruction[]; tokenTransfers: TokenTransfer[]; nativeTransfers: NativeTransfer[] };

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
  holderTransfers: number;
  treasuryPayouts: number;
  buybacks: number;
  treasuryBurns: number;
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
  /** keep every token account's expected balance in the ledger, for tests (default false; grows with the holders) */
  recordLedger?: boolean;
  /** how the treasury spends what it claims, in percent (default 70 to agents' vaults, 15 to creators, 15 to buy back and burn the platform token) */
  split?: TokenomicsSplit;
};

/** The platform token's mint: the first pool's, from its own stream so it is known before that pool exists. */
export const platformTokenMintFor = (seed: number): string => new Rng(deriveSeed(seed, 9)).address();

export class Market {
  readonly rng: Rng;
  readonly codecs = createCodecs();
  readonly configs: ConfigSim[];
  readonly pools: PoolSim[] = [];
  readonly wallets: Wallet[];
  readonly keeper: string;
  readonly counts: SimCounts = {
    transactions: 0, poolsCreated: 0, firstBuys: 0, dbcBuys: 0, dbcSells: 0, curveCompletions: 0, migrations: 0,
    dammBuys: 0, dammSells: 0, partnerClaims: 0, creatorClaims: 0, positionClaims: 0, burns: 0, holderTransfers: 0, treasuryPayouts: 0, buybacks: 0, treasuryBurns: 0,
  };
  /** wallets[0, traders) buy; the rest only ever receive coins from holders (and may sell them later) */
  readonly traders: number;
  readonly ledger: Ledger;
  readonly treasury: TreasurySim;
  readonly platformTokenMint: string;
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
    this.traders = this.wallets.length;
    // wallets that never trade: holders send them coins (a quarter as many as traders)
    const orng = new Rng(deriveSeed(o.seed, 10));
    for (let i = 0; i < Math.ceil(this.traders / 4); i++) this.wallets.push({ address: orng.address(), quoteAta: orng.address() });
    this.ledger = new Ledger(o.recordLedger ?? false);
    this.platformTokenMint = platformTokenMintFor(o.seed);
    this.treasury = treasuryFor(this.configs[0]!, orng, o.split ?? { vault: 70, creator: 15, platformBurn: 15 });
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
      // DBC's migrated_collect_fee_mode (0 QuoteToken, 1 OutputToken) as the DAMM v2 pool's mode
      // (the program's to_dammv2_collect_fee_mode: 0 -> 1 OnlyB, 1 -> 0 BothToken); fixed options: OnlyB
      dammCollectFeeMode: option === 6 && cfg.migratedCollectFeeMode === 1 ? 0 : 1,
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
    if (this.treasury.toBurn > 0n) return treasuryBurnStep(this);
    const head = this.migrations[0];
    if (head !== undefined && head.due <= this.counts.transactions) return migrate(this, this.migrations.shift()!.pool);
    const roll = r.int(1000);
    if (roll < 12) return claimStep(this);
    const side = roll < 20 ? burnStep(this) : roll < 35 ? holderTransferStep(this) : roll < 41 ? payoutStep(this) : roll < 45 ? buybackStep(this) : null;
    if (side !== null) return side;
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

  header(feePayer: string, fee = 25_000): TxHeader {
    const elapsed = this.timeMs - this.startMs;
    return { signature: this.rng.signature(), slot: 330_000_000 + Math.floor(elapsed / 400), timestamp: this.now, feePayer, fee };
  }

  /** A transaction signed and paid by `feePayer`; with the two ComputeBudget instructions wallets prepend to swaps unless `budget` is false. */
  begin(feePayer: string, fee = 25_000, budget = true): Tx {
    const h = this.header(feePayer, fee);
    return { h, b: new TxBalances(feePayer, fee), ixs: budget ? computeBudget() : [], tokenTransfers: [], nativeTransfers: [] };
  }

  /** The webhook element of a built transaction; its token balance changes go into the ledger. */
  finish(t: Tx, extra: Omit<TxExtra, "tokenTransfers" | "nativeTransfers"> = {}): EnhancedTransaction {
    if (t.h.feePayer === this.treasury.address) this.ledger.treasury.feesLamports += BigInt(t.h.fee);
    const accountData = t.b.accountData(this.ledger);
    if (this.intents !== null) this.recordBalances(t.h, accountData);
    return enhancedTransaction(t.h, t.ixs, accountData, { ...extra, tokenTransfers: t.tokenTransfers, nativeTransfers: t.nativeTransfers });
  }

  /** The balance facts a transaction carries: one token_balance per moved token account (ix = its position by account address), the fee payer's SOL change without the fee. */
  private recordBalances(h: TxHeader, accountData: AccountData[]): void {
    const signature = h.signature;
    // ix = the position in ingest's canonical order: by token account address (ingest/normalize.ts)
    const changes = accountData.flatMap((a) => a.tokenBalanceChanges).sort((x, y) => (x.tokenAccount < y.tokenAccount ? -1 : x.tokenAccount > y.tokenAccount ? 1 : 0));
    changes.forEach((c, i) =>
      this.record({ kind: "token_balance", signature, ix: i, mint: c.mint, account: c.tokenAccount, owner: c.userAccount, delta: BigInt(c.rawTokenAmount.tokenAmount), decimals: c.rawTokenAmount.decimals }),
    );
    const payer = BigInt(accountData[0]!.nativeBalanceChange) + BigInt(h.fee);
    if (payer !== 0n) this.record({ kind: "sol_balance", signature, ix: 0, account: h.feePayer, delta: payer });
  }

  record(i: Intent): void {
    this.intents?.push(i);
  }


  /** A completed curve migrates 2 to 30 transactions later. */
  scheduleMigration(p: PoolSim): void {
    this.migrations.push({ pool: p, due: this.counts.transactions + this.rng.range(2, 30) });
  }
}
