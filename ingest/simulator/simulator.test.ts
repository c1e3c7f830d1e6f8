import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { createSimulator, fixtureSimConfigs, runSimulator, type EnhancedTransaction } from "./index";

const opts = (seed: number) => ({ seed, configs: fixtureSimConfigs(seed, { creatorTradingFeePercentage: 50 }), pools: 8, recordIntents: true });

describe("simulator", () => {
  test("same seed gives byte-identical output, another seed does not", () => {
    const a = JSON.stringify(createSimulator(opts(7)).next(1500));
    const b = JSON.stringify(createSimulator(opts(7)).next(1500));
    const c = JSON.stringify(createSimulator(opts(8)).next(1500));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  test("output does not depend on how next() calls are split", () => {
    const whole = createSimulator(opts(3)).next(600);
    const s = createSimulator(opts(3));
    const parts = [...s.next(1), ...s.next(299), ...s.next(300)];
    expect(JSON.stringify(parts)).toBe(JSON.stringify(whole));
  });

  const sim = createSimulator(opts(11));
  const txs: EnhancedTransaction[] = sim.next(6000);
  const st = sim.state();

  test("the enhanced webhook shape, in chain order", () => {
    const keys = Object.keys(txs[0]!).sort();
    expect(keys).toEqual(
      ["accountData", "description", "events", "fee", "feePayer", "instructions", "nativeTransfers", "signature", "slot", "source", "timestamp", "tokenTransfers", "transactionError", "type"],
    );
    const sigs = new Set<string>();
    for (let i = 0; i < txs.length; i++) {
      const t = txs[i]!;
      expect(bs58.decode(t.signature).length).toBe(64);
      sigs.add(t.signature);
      expect(t.transactionError).toBeNull();
      if (i > 0) {
        expect(t.slot).toBeGreaterThanOrEqual(txs[i - 1]!.slot);
        expect(t.timestamp).toBeGreaterThanOrEqual(txs[i - 1]!.timestamp);
      }
      for (const ix of t.instructions) {
        for (const ins of [ix, ...ix.innerInstructions]) {
          expect(bs58.decode(ins.programId).length).toBe(32);
          for (const a of ins.accounts) expect(bs58.decode(a).length).toBe(32);
          bs58.decode(ins.data);
        }
      }
    }
    expect(sigs.size).toBe(txs.length);
    expect(txs[txs.length - 1]!.timestamp - txs[0]!.timestamp).toBe(Math.floor((6000 - 1) * 0.4));
  });

  test("the mix: mostly trades, some graduations, claims and burns", () => {
    const c = st.counts;
    expect(c.transactions).toBe(6000);
    expect(c.poolsCreated).toBe(8);
    const trades = c.dbcBuys + c.dbcSells + c.dammBuys + c.dammSells;
    expect(trades / c.transactions).toBeGreaterThan(0.9);
    expect(c.migrations).toBeGreaterThanOrEqual(1);
    expect(c.dammBuys).toBeGreaterThan(0);
    expect(c.dammSells).toBeGreaterThan(0);
    expect(c.partnerClaims).toBeGreaterThan(0);
    expect(c.creatorClaims).toBeGreaterThan(0);
    expect(c.positionClaims).toBeGreaterThan(0);
    expect(c.burns).toBeGreaterThan(0);
    // every transaction is exactly one of these (a first buy rides in its pool creation)
    expect(c.holderTransfers).toBeGreaterThan(0);
    expect(c.treasuryPayouts).toBeGreaterThan(0);
    expect(c.buybacks).toBeGreaterThan(0);
    expect(c.treasuryBurns).toBe(c.buybacks);
    const kinds = c.poolsCreated + trades + c.migrations + c.partnerClaims + c.creatorClaims + c.positionClaims + c.burns + c.holderTransfers + c.treasuryPayouts + c.buybacks + c.treasuryBurns + 1; // + the treasury opening its platform-token account
    expect(kinds).toBe(c.transactions);
    const graduated = st.pools.filter((p) => p.graduated);
    expect(graduated.length).toBe(c.migrations);
    for (const p of graduated) expect(p.dammPool).not.toBeNull();
    expect(new Set(st.pools.map((p) => p.role))).toEqual(new Set(["launch", "stock", "legacy"]));
  });

  test("curves complete at the migration threshold", () => {
    const completions = st.intents!.filter((i) => i.kind === "curve_complete");
    expect(completions.length).toBe(st.counts.curveCompletions);
    for (const i of completions) expect(i.quoteReserve).toBeGreaterThanOrEqual(100_000_000_000n);
  });
});

describe("runSimulator", () => {
  test("posts batches in chain order at the given rate until aborted", async () => {
    const simulator = createSimulator(opts(2));
    const reference = createSimulator(opts(2));
    const bodies: unknown[][] = [];
    const ac = new AbortController();
    const started = performance.now();
    const done = runSimulator({
      simulator,
      txPerSecond: 200,
      batchSize: 20,
      signal: ac.signal,
      post: async (body) => {
        bodies.push(body);
        if (bodies.length === 5) ac.abort();
      },
    });
    const report = await done;
    const elapsed = performance.now() - started;
    expect(report.batches).toBe(5);
    expect(report.transactions).toBe(100);
    // batches at t = 0, 0.1, 0.2, 0.3, 0.4 s
    expect(elapsed).toBeGreaterThanOrEqual(380);
    expect(elapsed).toBeLessThan(2000);
    expect(JSON.stringify(bodies.flat())).toBe(JSON.stringify(reference.next(100)));
  });

  test("an abort during the wait returns promptly", async () => {
    const ac = new AbortController();
    const started = performance.now();
    setTimeout(() => ac.abort(), 50);
    const report = await runSimulator({ simulator: createSimulator(opts(2)), txPerSecond: 1, batchSize: 10, signal: ac.signal, post: async () => {} });
    expect(report.batches).toBe(1);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
