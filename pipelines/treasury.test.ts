import { describe, expect, test } from "bun:test";
import type { Burn, Fact, SolBalanceChange, SolTransfer, TokenBalanceChange } from "../ingest/contract/facts";
import { WSOL_MINT } from "../ingest/contract/configs";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { fixtureSimConfigs } from "../ingest/simulator";
import { classify } from "./classify";
import { PoolRegistry } from "./platform/registry";
import { treasuryFlows, type TreasuryView } from "./treasury";
import { planBatch, planRows } from "./write-plan";
import type { TxEnvelope } from "../ingest/contract/envelope";

const TREASURY = "Treasury1111111111111111111111111111111111";
const CLAIMER = "FeeC1aimer111111111111111111111111111111111";
const PLATFORM_TOKEN = "P1atformToken111111111111111111111111111111";
const VAULT = "AgentVau1t11111111111111111111111111111111";
const CREATOR = "Creator111111111111111111111111111111111111";
const TREASURY_WSOL = "TreasuryWso1Account1111111111111111111111111";
const TREASURY_PT = "TreasuryP1atformAccount111111111111111111111";
const POOL_VAULT = "Poo1Vau1t111111111111111111111111111111111";
const view: TreasuryView = { treasury: new Set([TREASURY, CLAIMER]), platformTokenMint: PLATFORM_TOKEN };

const KEY = { signature: "sig-1", slot: 500, blockTime: 1_700_000_100 };
const transfer = (ix: number, inner: number, from: string, to: string, lamports: bigint): SolTransfer => ({ ...KEY, kind: "sol_transfer", ix, inner, from, to, lamports });
const balance = (account: string, delta: bigint): SolBalanceChange => ({ ...KEY, kind: "sol_balance", ix: 0, inner: -3, account, delta });
const token = (ix: number, mint: string, account: string, owner: string, delta: bigint): TokenBalanceChange => ({ ...KEY, kind: "token_balance", ix, inner: -2, mint, account, owner, delta, decimals: mint === WSOL_MINT ? 9 : 6 });
const row = (ix: number, inner: number, kind: "transfer" | "buyback", treasury: string, recipient: string, lamports: bigint, atoms: bigint) => ({
  signature: KEY.signature, slot: KEY.slot, at: KEY.blockTime, ix, inner, kind, treasury, recipient, lamports, atoms,
});

describe("treasuryFlows", () => {
  test("payouts: each System transfer out of a treasury address, to any recipient; transfers by others ignored", () => {
    const facts: Fact[] = [
      transfer(0, -1, TREASURY, VAULT, 700_000_000n),
      transfer(1, 2, CLAIMER, CREATOR, 150_000_000n),
      transfer(2, -1, CREATOR, TREASURY, 5n), // into the treasury: not an outflow
      transfer(3, -1, TREASURY, VAULT, 0n), // nothing moved
      balance(TREASURY, -850_000_000n),
    ];
    expect(treasuryFlows(facts, view)).toEqual([
      row(0, -1, "transfer", TREASURY, VAULT, 700_000_000n, 0n),
      row(1, 2, "transfer", CLAIMER, CREATOR, 150_000_000n, 0n),
    ]);
  });

  test("a buyback: wrap, swap, unwrap; lamports = what the treasury's SOL and wSOL lost, the fee excluded; no transfer rows", () => {
    // the treasury wraps 1.5 SOL into its wSOL account (a transfer to its own token account),
    // the swap takes 1.2 SOL of it for 4,000,000 platform-token atoms, 0.3 stays wrapped
    const facts: Fact[] = [
      transfer(2, -1, TREASURY, TREASURY_WSOL, 1_500_000_000n),
      token(0, WSOL_MINT, TREASURY_WSOL, TREASURY, 300_000_000n),
      token(1, PLATFORM_TOKEN, TREASURY_PT, TREASURY, 4_000_000n),
      token(2, WSOL_MINT, POOL_VAULT, "PoolAuthority", 1_200_000_000n),
      token(3, PLATFORM_TOKEN, POOL_VAULT, "PoolAuthority", -4_000_000n),
      balance(TREASURY, -1_500_000_000n),
    ];
    // keyed by the first fact it is read from: the treasury's wSOL balance
    expect(treasuryFlows(facts, view)).toEqual([row(0, -2, "buyback", TREASURY, "", 1_200_000_000n, 4_000_000n)]);
    // the same swap signed by someone else for the treasury (no sol_balance of it): only wSOL counts
    const viaWsol = [token(0, WSOL_MINT, TREASURY_WSOL, TREASURY, -1_200_000_000n), token(1, PLATFORM_TOKEN, TREASURY_PT, TREASURY, 4_000_000n)];
    expect(treasuryFlows(viaWsol, view)).toEqual([row(0, -2, "buyback", TREASURY, "", 1_200_000_000n, 4_000_000n)]);
  });

  test("not a buyback: the platform token arrived while SOL did not fall, or SOL fell without it; then transfers count", () => {
    const gotTokenForFree: Fact[] = [token(0, PLATFORM_TOKEN, TREASURY_PT, TREASURY, 10n), balance(TREASURY, 2n)];
    expect(treasuryFlows(gotTokenForFree, view)).toEqual([]);
    // a payout in the same transaction as an unrelated token movement
    const soldToken: Fact[] = [token(0, PLATFORM_TOKEN, TREASURY_PT, TREASURY, -10n), transfer(1, -1, TREASURY, VAULT, 9n), balance(TREASURY, -9n)];
    expect(treasuryFlows(soldToken, view)).toEqual([row(1, -1, "transfer", TREASURY, VAULT, 9n, 0n)]);
    // without a platform token there are no buybacks: the wrap to its own token account is no payout either
    const noToken: TreasuryView = { ...view, platformTokenMint: null };
    const wrap: Fact[] = [transfer(0, -1, TREASURY, TREASURY_WSOL, 7n), token(0, WSOL_MINT, TREASURY_WSOL, TREASURY, 7n), token(1, PLATFORM_TOKEN, TREASURY_PT, TREASURY, 3n), balance(TREASURY, -7n)];
    expect(treasuryFlows(wrap, noToken)).toEqual([]);
    expect(treasuryFlows(wrap.slice(0, 1), noToken)).toEqual([row(0, -1, "transfer", TREASURY, TREASURY_WSOL, 7n, 0n)]);
    expect(treasuryFlows(wrap, { treasury: new Set(), platformTokenMint: PLATFORM_TOKEN })).toEqual([]);
  });
});

describe("in the pool view and the plan", () => {
  const configs = simulatedConfigRegistry(fixtureSimConfigs(3));
  const feeClaimer = configs.all[0]!.feeClaimer;

  test("the treasury is TREASURY_ADDRESS and every config's fee claimer; the platform token from the configuration", () => {
    const pools = new PoolRegistry(configs, { treasuryAddress: TREASURY, platformTokenMint: PLATFORM_TOKEN });
    expect([...pools.treasury].sort()).toEqual([...new Set([TREASURY, ...configs.all.map((c) => c.feeClaimer)])].sort());
    expect(pools.platformTokenMint).toBe(PLATFORM_TOKEN);
    const bare = new PoolRegistry(configs);
    expect([...bare.treasury]).toEqual([feeClaimer]);
    expect(bare.platformTokenMint).toBeNull();
  });

  test("classify accepts the platform token's burns and balances, drops and parks nothing of the treasury's kinds", () => {
    const pools = new PoolRegistry(configs, { treasuryAddress: TREASURY, platformTokenMint: PLATFORM_TOKEN });
    const burn: Burn = { ...KEY, kind: "burn", ix: 4, inner: -1, mint: PLATFORM_TOKEN, account: TREASURY_PT, authority: TREASURY, amount: 99n, program: "spl-token" };
    const facts: Fact[] = [burn, token(0, PLATFORM_TOKEN, TREASURY_PT, TREASURY, -99n), transfer(1, -1, TREASURY, VAULT, 5n), balance(TREASURY, -5n)];
    const c = classify(facts, pools);
    expect(c.accepted).toEqual(facts.slice(0, 2));
    expect([c.parked, c.dropped]).toEqual([[], 0]);
    // without PLATFORM_TOKEN_MINT the burn is any unknown coin's: parked for its mint
    const without = classify([burn], new PoolRegistry(configs));
    expect(without.parked.map((p) => p.waitsFor)).toEqual([PLATFORM_TOKEN]);
  });

  test("planRows reads treasury_flows from each fresh transaction; a suspect's are checked", () => {
    const pools = new PoolRegistry(configs, { treasuryAddress: TREASURY, platformTokenMint: PLATFORM_TOKEN });
    const env = (signature: string, facts: Fact[]): TxEnvelope => ({
      source: "helius", receivedAt: 0, signature, slot: 1, blockTime: 1, status: "decoded",
      facts: facts.map((f) => ({ ...f, signature })), unknownCount: 0, errorCount: 0, detail: "", payload: "",
    });
    const payout = env("payout", [transfer(0, -1, feeClaimer, CREATOR, 42n)]);
    const stored = env("stored", [transfer(0, -1, TREASURY, VAULT, 1n)]);
    const redelivered = env("redelivered", [transfer(1, 0, TREASURY, VAULT, 7n)]);
    const batch = planBatch([payout, stored, redelivered], new Set(["stored", "redelivered"]), new Set(["redelivered"]), pools);
    const plan = planRows(batch, [], pools);
    expect(plan.tables.treasury_flows.clear.map((r) => [r.signature, r.treasury, r.recipient, r.lamports])).toEqual([["payout", feeClaimer, CREATOR, 42n]]);
    expect(plan.tables.treasury_flows.check.map((r) => [r.signature, r.ix, r.inner, r.lamports])).toEqual([["redelivered", 1, 0, 7n]]);
  });
});
