/**
 * Seeded, deterministic load simulator: Helius enhanced-webhook payloads of a platform
 * whose coins launch on DBC, trade on the curve, graduate to DAMM v2 and trade there.
 * Same seed and options give byte-identical output.
 */
import type { EnhancedTransaction } from "./helius";
import type { Ledger } from "./ledger";
import { Market, platformTokenMintFor, type Intent, type MarketOptions, type SimCounts } from "./market";
import { sdkPoolConfig } from "./dbc";
import { pkString, type ConfigRole, type SimConfig } from "./world";

export type { SimConfig, ConfigRole } from "./world";
export type { EnhancedTransaction } from "./helius";
export type { Intent, SimCounts } from "./market";
export type { Ledger, TreasuryTotals, TreasuryPayout, TreasuryBuyback, TreasuryBurn, TokenAccountBalance } from "./ledger";
export type { TokenomicsSplit } from "./treasury";
export { fixtureSimConfigs, decodeFixturePoolConfig } from "./configs";

export type SimulatorOptions = MarketOptions;

export type SimPoolView = {
  index: number;
  mint: string;
  pool: string;
  /** the pool creator (the agent's vault) */
  creator: string;
  /** who paid for the pool's creation (the coin's creator) */
  payer: string;
  config: string;
  role: ConfigRole;
  quoteMint: string;
  name: string;
  symbol: string;
  curveComplete: boolean;
  graduated: boolean;
  /** the DAMM v2 pool once migrated, else null */
  dammPool: string | null;
  holders: number;
};

export type SimulatorState = {
  pools: SimPoolView[];
  counts: Readonly<SimCounts>;
  /** unix seconds of the next transaction */
  now: number;
  /** one per fact, when created with recordIntents */
  intents: readonly Intent[] | null;
  /** the platform token (the first pool's coin) and the treasury (the first config's fee claimer) */
  platformTokenMint: string;
  treasury: string;
  /** expected balances (with recordLedger) and the treasury's totals, live */
  ledger: Ledger;
};

/**
 * The simulated platform's token and treasury for a seed and configs, known before the
 * simulator runs (so the platform can be configured with them at start-up).
 */
export function simulatedPlatform(seed: number, configs: SimConfig[]): { platformTokenMint: string; treasury: string } {
  if (configs.length === 0) throw new Error("simulator: at least one config is needed");
  return { platformTokenMint: platformTokenMintFor(seed), treasury: pkString(sdkPoolConfig(configs[0]!.poolConfig).feeClaimer) };
}

export type Simulator = {
  /** the next `count` transactions, in chain order */
  next(count: number): EnhancedTransaction[];
  /** a read-only snapshot for tests and reports */
  state(): SimulatorState;
};

export function createSimulator(opts: SimulatorOptions): Simulator {
  const market = new Market(opts);
  return {
    next(count: number): EnhancedTransaction[] {
      const out = new Array<EnhancedTransaction>(count);
      for (let i = 0; i < count; i++) out[i] = market.step();
      return out;
    },
    state(): SimulatorState {
      return {
        pools: market.pools.map((p) => ({
          index: p.index,
          mint: p.mint,
          pool: p.pool,
          creator: p.creator,
          payer: p.payer,
          config: p.config.address,
          role: p.config.role,
          quoteMint: p.config.quoteMint,
          name: p.name,
          symbol: p.symbol,
          curveComplete: p.phase !== "curve",
          graduated: p.phase === "graduated",
          dammPool: p.damm?.pool ?? null,
          holders: p.holders.length,
        })),
        counts: { ...market.counts },
        now: market.now,
        intents: market.intents,
        platformTokenMint: market.platformTokenMint,
        treasury: market.treasury.address,
        ledger: market.ledger,
      };
    },
  };
}

export type RunOptions = {
  simulator: Simulator;
  /** delivers one webhook body (an array of transactions), e.g. a POST to the webhook route */
  post: (body: unknown[]) => Promise<void>;
  txPerSecond: number;
  batchSize: number;
  signal: AbortSignal;
};

export type RunReport = { batches: number; transactions: number; seconds: number };

/**
 * Posts batches at `txPerSecond` until aborted. Batches are posted one at a time, in
 * chain order; when `post` is slower than the rate, the run falls behind rather than
 * overlapping deliveries (the reported rate says so).
 */
export async function runSimulator(o: RunOptions): Promise<RunReport> {
  if (!(o.txPerSecond > 0) || !(o.batchSize > 0)) throw new Error("runSimulator: txPerSecond and batchSize must be positive");
  const started = performance.now();
  let transactions = 0;
  let batches = 0;
  while (!o.signal.aborted) {
    const due = started + (transactions / o.txPerSecond) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait, o.signal);
    if (o.signal.aborted) break;
    const body = o.simulator.next(o.batchSize);
    await o.post(body);
    transactions += body.length;
    batches++;
  }
  return { batches, transactions, seconds: (performance.now() - started) / 1000 };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
