/**
 * The simulator against the real ingest path: every payload normalizes, decodes without
 * unknowns or errors, and yields exactly the facts the simulator meant (one Trade per DBC
 * swap although both EvtSwap and EvtSwap2 are emitted).
 *
 * The simulator also means balance facts (token_balance per moved token account,
 * sol_transfer per System transfer, sol_balance for the fee payer) that decoders on other
 * branches produce: each kind is compared as soon as the decoders emit it (BALANCE_KINDS),
 * and until then left out of both sides.
 */
import { describe, expect, test } from "bun:test";
import { decodeTransaction } from "../decoders/index";
import type { Fact } from "../contract/facts";
import { normalizeWebhookTransaction } from "../normalize";
import { createSimulator, fixtureSimConfigs, type Intent } from "./index";
import { DynamicBondingCurveIdl } from "@meteora-ag/dynamic-bonding-curve-sdk";
import bs58 from "bs58";

const DBC_ID = DynamicBondingCurveIdl.address;
const SWAP2 = DynamicBondingCurveIdl.instructions.find((i) => i.name === "swap2")!.discriminator.join();

function strip(f: Fact): Intent {
  const { inner: _i, slot: _s, blockTime: _b, ...rest } = f;
  return rest as Intent;
}

const BALANCE_KINDS = ["token_balance", "sol_transfer", "sol_balance"] as const;

/** Facts and intents of the kinds both sides speak: the instruction facts, plus each balance kind once decoders emit it. */
function comparable(facts: Intent[], intents: readonly Intent[]): [Intent[], Intent[]] {
  const emitted = new Set(facts.map((f) => f.kind));
  const keep = (i: Intent) => !(BALANCE_KINDS as readonly string[]).includes(i.kind) || emitted.has(i.kind);
  // balance facts may sit anywhere among a transaction's facts: compare kind by kind, each in chain order
  const order = (list: Intent[]) => [...list.filter(keep)].sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  return [order(facts), order([...intents])];
}

function run(seed: number, count: number, legacySwapEvent: boolean, configs = fixtureSimConfigs(seed, { creatorTradingFeePercentage: 40 })) {
  const sim = createSimulator({ seed, configs, pools: 8, recordIntents: true, legacySwapEvent });
  const txs = sim.next(count);
  const decoded = txs.map((t) => {
    const n = normalizeWebhookTransaction(JSON.parse(JSON.stringify(t)));
    if (!n.ok) throw new Error(`${t.signature}: ${n.reason}`);
    return { t, d: decodeTransaction(n.tx) };
  });
  return { txs, st: sim.state(), decoded };
}

test("without the legacy EvtSwap, decoding still yields exactly the intended facts", () => {
  const { st, decoded } = run(4, 1500, false);
  const facts = decoded.flatMap(({ d }) => d.facts.map(strip));
  expect(decoded.every(({ d }) => d.errors.length === 0 && d.unknown.length === 0)).toBe(true);
  const [got, meant] = comparable(facts, st.intents!);
  expect(got).toEqual(meant);
});

test("a Token-2022 config: token2022 pool creation, Token-2022 transfers and burns", () => {
  const configs = fixtureSimConfigs(6).map((c) => ({ ...c, poolConfig: { ...(c.poolConfig as object), token_type: 1 } }));
  const { st, decoded } = run(6, 1500, true, configs);
  const facts = decoded.flatMap(({ d }) => d.facts.map(strip));
  expect(decoded.every(({ d }) => d.errors.length === 0 && d.unknown.length === 0)).toBe(true);
  const [got, meant] = comparable(facts, st.intents!);
  expect(got).toEqual(meant);
  expect(facts.filter((f) => f.kind === "pool_created").every((f) => f.kind === "pool_created" && f.poolType === 1)).toBe(true);
  const burns = facts.filter((f) => f.kind === "burn");
  expect(burns.length).toBeGreaterThan(0);
  expect(burns.every((f) => f.kind === "burn" && f.program === "token-2022")).toBe(true);
});

test("a config that gives the creator migrated liquidity: two positions, both owners claim", () => {
  const configs = fixtureSimConfigs(8).map((c) => ({
    ...c,
    poolConfig: { ...(c.poolConfig as object), partner_permanent_locked_liquidity_percentage: 50, creator_liquidity_percentage: 50 },
  }));
  const { st, decoded, txs } = run(8, 6000, true, configs);
  const facts = decoded.flatMap(({ d }) => d.facts.map(strip));
  expect(decoded.every(({ d }) => d.errors.length === 0 && d.unknown.length === 0)).toBe(true);
  const [got, meant] = comparable(facts, st.intents!);
  expect(got).toEqual(meant);
  expect(st.counts.migrations).toBeGreaterThan(0);
  const migrationTx = txs.find((t) => t.instructions.some((ix) => ix.programId === DBC_ID && ix.innerInstructions.length >= 5))!;
  expect(migrationTx).toBeDefined();
  const positionClaims = facts.filter((f) => f.kind === "fee_claim" && f.role === "position");
  const owners = new Set(positionClaims.map((f) => (f.kind === "fee_claim" ? f.claimer : "")));
  expect(owners.size).toBeGreaterThan(1);
});

// The fee currency: the simulator charges each swap as its pool's collect fee mode says and means
// the trade's feesIn from that mode; the decoder reads it from the swap event's amounts alone.
// One config collects in the quote token (DBC collect_fee_mode 0), the others in the output token
// (the mainnet fee_in_both config, 1), and their graduated pools in both tokens (DAMM v2 BothToken,
// from migrated_collect_fee_mode 1 OutputToken): every currency of every venue is decoded as meant,
// with the legacy EvtSwap and without.
test("fees in both currencies: each trade's fee currency as its pool's collect fee mode charges it", () => {
  const configs = fixtureSimConfigs(9).map((c, i) => ({
    ...c,
    poolConfig: { ...(c.poolConfig as object), collect_fee_mode: i === 0 ? 0 : 1, migration_fee_option: 6, migrated_collect_fee_mode: 1, migrated_pool_fee_bps: 100 },
  }));
  for (const legacy of [true, false]) {
    const { st, decoded } = run(9, 6000, legacy, configs);
    const facts = decoded.flatMap(({ d }) => d.facts.map(strip));
    expect(decoded.every(({ d }) => d.errors.length === 0 && d.unknown.length === 0)).toBe(true);
    const [got, meant] = comparable(facts, st.intents!);
    expect(got).toEqual(meant);
    const kinds = new Set(facts.flatMap((f) => (f.kind === "trade" ? [`${f.venue} ${f.side} ${f.feesIn}`] : [])));
    expect([...kinds].sort()).toEqual(["damm_v2 buy base", "damm_v2 sell quote", "dbc buy base", "dbc buy quote", "dbc sell quote"]);
  }
});

describe("simulated payloads through normalize + decode", () => {
  const { txs, st, decoded } = run(21, 8000, true);

  test("no unknown discriminators, no decoding errors, keys carry slot and time", () => {
    for (const { t, d } of decoded) {
      expect(d.unknown).toEqual([]);
      expect(d.errors).toEqual([]);
      for (const f of d.facts) {
        expect(f.signature).toBe(t.signature);
        expect(f.slot).toBe(t.slot);
        expect(f.blockTime).toBe(t.timestamp);
      }
    }
  });

  test("the decoded facts are exactly the intended ones, in order", () => {
    const [facts, intents] = comparable(decoded.flatMap(({ d }) => d.facts.map(strip)), st.intents!);
    expect(facts.length).toBe(intents.length);
    for (let i = 0; i < facts.length; i++) expect(facts[i]).toEqual(intents[i]!);
    // the treasury's buybacks and burns of the platform token are among them
    const platform = st.platformTokenMint;
    expect(facts.some((f) => f.kind === "trade" && f.trader === st.treasury && f.mint === platform && f.side === "buy")).toBe(true);
    expect(facts.some((f) => f.kind === "burn" && f.authority === st.treasury && f.mint === platform)).toBe(true);
  });

  for (const kind of BALANCE_KINDS)
    test(`${kind} facts are exactly the intended ones`, () => {
      const facts = decoded.flatMap(({ d }) => d.facts.filter((f) => f.kind === kind).map(strip));
      const meant = st.intents!.filter((i) => i.kind === kind);
      expect(meant.length).toBeGreaterThan(0);
      expect(facts).toEqual(meant);
    });

  test("per-pool and per-kind tallies match the simulator's counts", () => {
    const facts = decoded.flatMap(({ d }) => d.facts);
    const c = st.counts;
    const trades = facts.filter((f) => f.kind === "trade");
    const dbc = trades.filter((f) => f.venue === "dbc");
    const damm = trades.filter((f) => f.venue === "damm_v2");
    expect(dbc.filter((f) => f.side === "buy").length).toBe(c.dbcBuys + c.firstBuys + dbc.filter((f) => f.trader === st.treasury).length);
    expect(dbc.filter((f) => f.side === "sell").length).toBe(c.dbcSells);
    expect(damm.filter((f) => f.side === "buy").length).toBe(c.dammBuys + damm.filter((f) => f.trader === st.treasury).length);
    expect(trades.filter((f) => f.trader === st.treasury).length).toBe(c.buybacks);
    expect(damm.filter((f) => f.side === "sell").length).toBe(c.dammSells);
    expect(facts.filter((f) => f.kind === "pool_created").length).toBe(c.poolsCreated);
    expect(facts.filter((f) => f.kind === "curve_complete").length).toBe(c.curveCompletions);
    expect(facts.filter((f) => f.kind === "burn").length).toBe(c.burns + c.treasuryBurns);
    const claims = facts.filter((f) => f.kind === "fee_claim");
    expect(claims.filter((f) => f.role === "partner").length).toBe(c.partnerClaims);
    expect(claims.filter((f) => f.role === "creator").length).toBe(c.creatorClaims);
    expect(claims.filter((f) => f.role === "position").length).toBe(c.positionClaims);
    expect(claims.some((f) => f.role === "creator" && f.baseAmount + f.quoteAmount > 0n)).toBe(true);

    // one DBC swap instruction, one Trade
    const swaps = txs.flatMap((t) => t.instructions).filter((ix) => ix.programId === DBC_ID && bs58.decode(ix.data).subarray(0, 8).join() === SWAP2);
    expect(swaps.length).toBeGreaterThan(1000);
    expect(dbc.length).toBe(swaps.length);
    expect(c.migrations).toBeGreaterThan(0);

    for (const p of st.pools) {
      const mine = trades.filter((f) => f.mint === p.mint);
      expect(mine.every((f) => f.pool === (f.venue === "dbc" ? p.pool : p.dammPool))).toBe(true);
      const migration = facts.find((f) => f.kind === "migration" && f.pool === p.pool);
      if (p.graduated) {
        expect(migration?.kind === "migration" && migration.dammPool).toBe(p.dammPool!);
        expect(migration?.kind === "migration" && migration.sqrtPrice).toBeGreaterThan(0n);
      } else expect(migration).toBeUndefined();
    }
  });
});
