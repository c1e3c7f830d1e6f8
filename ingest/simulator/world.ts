/**
 * The simulator's model of the platform: configs, pools, wallets and who holds what.
 * Plain data plus small helpers; the market decides what happens to it.
 */
import type { PoolConfig } from "@meteora-ag/dynamic-bonding-curve-sdk";
import type { PublicKey } from "@solana/web3.js";
import type { DbcCurve } from "./dbc";
import type { DammPool } from "./damm";
import type { Rng } from "./random";
import { NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./encode";

export type ConfigRole = "launch" | "stock" | "legacy";

/** A DBC config the platform launches on. `poolConfig` is the Anchor-decoded PoolConfig account. */
export type SimConfig = {
  address: string;
  role: ConfigRole;
  poolConfig: unknown;
  /** quote mint decimals; default 9 for wrapped SOL, else 6 */
  quoteDecimals?: number;
  /** token program of the quote mint; default SPL Token (tokenized stocks are often Token-2022) */
  quoteTokenProgram?: string;
};

export type ConfigSim = {
  address: string;
  role: ConfigRole;
  cfg: PoolConfig;
  quoteMint: string;
  quoteDecimals: number;
  baseDecimals: number;
  /** 0 = SPL Token, 1 = Token-2022 (the config's token_type) */
  tokenType: number;
  baseTokenProgram: string;
  quoteTokenProgram: string;
  feeClaimer: string;
  /** fee claimer's quote token account */
  feeClaimerQuoteAta: string;
  /** the DAMM v2 config migrations of this DBC config use */
  dammConfig: string;
  dammFeeNumerator: bigint;
  dammCollectFeeMode: number;
  /** percent of migrated liquidity in the partner's and the creator's positions */
  partnerLiquidityPct: number;
  creatorLiquidityPct: number;
};

export type Holding = { wallet: number; ata: string; amount: bigint; at: number };

export type PoolSim = {
  index: number;
  config: ConfigSim;
  mint: string;
  pool: string;
  baseVault: string;
  quoteVault: string;
  metadata: string;
  /** the pool creator: the agent's vault, which the treasury pays */
  creator: string;
  /** who paid for the pool's creation: the coin's creator, whom the treasury pays */
  payer: string;
  creatorBaseAta: string;
  creatorQuoteAta: string;
  partnerBaseAta: string;
  name: string;
  symbol: string;
  uri: string;
  /** activity weight, 1..256 */
  weight: number;
  /** chance out of 1000 that a trade on this pool is a buy */
  buyPermille: number;
  curve: DbcCurve;
  holdings: Map<number, Holding>;
  holders: Holding[];
  phase: "curve" | "complete" | "graduated";
  damm?: { pool: string; vaultA: string; vaultB: string; state: DammPool };
  /** the claimers' coin accounts exist (created by their first claim) */
  partnerBaseAtaOpen: boolean;
  creatorBaseAtaOpen: boolean;
  /** lamports the treasury claimed from this pool's fees, and what it paid out of them */
  treasury: { claimed: bigint; paidVault: bigint; paidCreator: bigint };
  /** what the migration moved from the curve's vaults into DAMM v2's */
  migratedBase?: bigint;
  migratedQuote?: bigint;
};

export type Wallet = { address: string; quoteAta: string };

export const quoteDecimalsFor = (quoteMint: string, given?: number): number => given ?? (quoteMint === NATIVE_MINT ? 9 : 6);

export const baseTokenProgram = (tokenType: number): string => (tokenType === 1 ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID);

export const pkString = (v: unknown): string => (v as PublicKey).toBase58();

/** Holder bookkeeping: O(1) add, remove and uniform pick. */
export function credit(p: PoolSim, wallet: number, amount: bigint, rng: Rng): Holding {
  let h = p.holdings.get(wallet);
  if (h === undefined) {
    h = { wallet, ata: rng.address(), amount: 0n, at: -1 };
    p.holdings.set(wallet, h);
  }
  if (h.at < 0 && h.amount + amount > 0n) {
    h.at = p.holders.length;
    p.holders.push(h);
  }
  h.amount += amount;
  return h;
}

export function debit(p: PoolSim, h: Holding, amount: bigint): void {
  h.amount -= amount;
  if (h.amount <= 0n && h.at >= 0) {
    const last = p.holders.pop()!;
    if (last !== h) {
      p.holders[h.at] = last;
      last.at = h.at;
    }
    h.at = -1;
  }
}

const SYLLABLES = ["ka", "zu", "mi", "ro", "ta", "ne", "vo", "li", "xa", "qui", "dra", "lo", "sy", "pe", "gon", "fi"];
const KINDS = ["Agent", "Analyst", "Oracle", "Trader", "Patron", "Studio", "Gambler", "Forecaster"];

/** Coin metadata: deterministic and printable. */
export function coinMetadata(rng: Rng, index: number): { name: string; symbol: string; uri: string } {
  let word = "";
  const n = rng.range(2, 3);
  for (let i = 0; i < n; i++) word += rng.pick(SYLLABLES);
  const name = `${word[0]!.toUpperCase()}${word.slice(1)} ${rng.pick(KINDS)}`;
  const symbol = word.slice(0, 5).toUpperCase();
  return { name, symbol, uri: `https://sim.agentcoin.invalid/coins/${index}.json` };
}
