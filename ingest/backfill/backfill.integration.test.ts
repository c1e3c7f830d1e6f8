import { describe, expect, test } from "bun:test";
import { testEngines } from "../../infra/testing/engines";
import { startRpcTestDouble } from "../../infra/testing/rpc-double";
import { toEnvelopes } from "../helius/handle";
import type { Bus } from "../../pipelines/bus";
import { createChainReader, parseSince, runBackfill, sinceKey, type Since } from ".";
import { inProcessStore, simulatedChain, storedCounts } from "../../compose/testing/test-chain";
import { newAddress, payout } from "../../compose/testing/treasury-payloads";
import { enhancedToRaw } from "../simulator/enhanced-to-raw";
import { buildStorage } from "../../compose/storage";
import { createLogger } from "../../infra/log";
import { treasuryAddresses } from "../contract/configs";

const ALL: Since = { kind: "slot", slot: 0 };
const fastRetries = { baseDelayMs: 1, maxDelayMs: 5 };

/** Whether a simulated transaction names one of `addresses` (the backfill finds it in that address's history). */
const names = (t: { feePayer: string; instructions: { accounts: string[]; innerInstructions: { accounts: string[] }[] }[] }, addresses: string[]) =>
  addresses.includes(t.feePayer) ||
  t.instructions.some((i) => i.accounts.some((a) => addresses.includes(a)) || i.innerInstructions.some((n) => n.accounts.some((a) => addresses.includes(a))));

/** Each test has its own seed: its configs, pools and mints are its own in the shared engines. */
async function setup(seed: number, transactions = 3000, failedEvery?: number) {
  const engines = await testEngines();
  const chain = simulatedChain(seed, transactions, { failedEvery });
  const rpc = startRpcTestDouble(new Map(), { transactions: chain.ledger });
  const store = await inProcessStore(engines, chain);
  const reader = createChainReader(rpc.url, fastRetries);
  const deps = { reader, bus: store.bus, stored: store.stored, ch: engines.ch, sql: engines.sql };
  const counts = () => storedCounts(engines.ch, chain.mints, [...chain.signatures, ...chain.failed]);
  const calls = (method: string) => rpc.calls.filter((c) => c.method === method).length;
  return { engines, chain, rpc, store, deps, counts, calls };
}

describe("backfill from RPC", () => {
  test("(a) a simulated chain into an empty store: every fact, as many as the simulator made; failed transactions skipped", async () => {
    const { chain, rpc, deps, counts, calls } = await setup(401, 3000, 250);
    try {
      expect(await counts()).toMatchObject({ trades: 0, transactions: 0 });
      // configs and DAMM v2 pools only: creator fee claims and burns name neither
      const first = await runBackfill(deps, { since: ALL, configs: chain.configAddresses, pageSize: 400 });
      expect(first.stopped).toBe(false);
      const partial = await counts();
      expect(partial).toMatchObject({ trades: chain.expected.trades, candle_trades: chain.expected.trades, market_trades: chain.expected.trades, claims: chain.expected.claimsWithoutCreator, burns: 0 });
      expect(first.stats.failed).toBe(chain.failed.length);

      // --coins adds each coin's DBC pool and mint: now everything the simulator made is stored
      const second = await runBackfill(deps, { since: ALL, configs: chain.configAddresses, coins: true, pageSize: 400 });
      const full = await counts();
      expect(full).toMatchObject({
        trades: chain.expected.trades,
        candle_trades: chain.expected.trades,
        market_trades: chain.expected.trades,
        claims: chain.expected.claims,
        burns: chain.expected.burns,
        transactions: chain.signatures.length, // failed copies are never fetched nor stored
        transaction_rows: chain.signatures.length,
      });
      expect(second.stats.addressesSkipped).toBeGreaterThan(0); // the configs and DAMM v2 pools were finished
      // each transaction was fetched once over both runs: already-stored ones are not fetched again
      expect(calls("getTransaction")).toBe(chain.signatures.length);
      const rows = await deps.sql`SELECT kind, done FROM backfill_checkpoints WHERE address = ANY(${chain.configAddresses}::text[])`;
      expect(rows.map((r) => r.done)).toEqual([true, true, true]);
    } finally {
      rpc.stop();
    }
  });

  test("(a') --since bounds the walk by slot and by time", async () => {
    const { chain, rpc, deps, engines } = await setup(402, 1500);
    try {
      const configs = new Set(chain.configAddresses);
      const namesConfig = (r: (typeof chain.ledger)[number]) => r.transaction.message.accountKeys.some((k) => configs.has(k));
      const cut = chain.ledger[900]!;
      await runBackfill(deps, { since: { kind: "slot", slot: cut.slot }, configs: chain.configAddresses, pageSize: 300 });
      const stored = await engines.ch.query<{ signature: string; slot: string }>(
        "SELECT signature, toString(slot) AS slot FROM transactions WHERE signature IN {s:Array(String)}",
        { s: chain.signatures },
      );
      expect(Math.min(...stored.map((r) => Number(r.slot)))).toBeGreaterThanOrEqual(cut.slot);
      const storedSet = new Set(stored.map((r) => r.signature));
      const inRange = chain.ledger.filter((r) => r.slot >= cut.slot && namesConfig(r));
      expect(inRange.length).toBeGreaterThan(100);
      for (const r of inRange) expect(storedSet.has(r.transaction.signatures[0]!)).toBe(true);

      // by time: blockTime at or after it; all of that was stored by the slot-bounded run already
      const at = chain.ledger[1200]!.blockTime!;
      const byTime = parseSince(new Date(at * 1000).toISOString());
      if ("error" in byTime) throw new Error(byTime.error);
      const r = await runBackfill(deps, { since: byTime, configs: chain.configAddresses, pageSize: 300 });
      expect(r.stats.published).toBe(0);
      const seen = await deps.sql`SELECT sum(signatures)::int AS n FROM backfill_checkpoints WHERE since = ${sinceKey(byTime)} AND address = ANY(${chain.configAddresses}::text[])`;
      expect(seen[0]!.n).toBe(chain.ledger.filter((x) => x.blockTime! >= at && namesConfig(x)).length);
    } finally {
      rpc.stop();
    }
  });

  test("(b) interrupted (aborted, then a crash in publish) and resumed: the same final counts, nothing twice", async () => {
    const { chain, rpc, deps, counts, store } = await setup(403, 3000);
    try {
      const reference = { trades: chain.expected.trades, candle_trades: chain.expected.trades, market_trades: chain.expected.trades, claims: chain.expected.claims, burns: chain.expected.burns, transactions: chain.signatures.length, transaction_rows: chain.signatures.length };
      // 1. stopped by a signal after a few pages
      const stop = new AbortController();
      let pages = 0;
      const counting: Bus = {
        publish: async (b) => {
          await store.bus.publish(b);
          if (++pages === 3) stop.abort();
        },
        close: async () => {},
      };
      const aborted = await runBackfill({ ...deps, bus: counting }, { since: ALL, configs: chain.configAddresses, coins: true, pageSize: 200, signal: stop.signal });
      expect(aborted.stopped).toBe(true);
      const cp = await deps.sql`SELECT count(*)::int AS n FROM backfill_checkpoints WHERE address = ANY(${chain.configAddresses}::text[]) AND before_signature IS NOT NULL`;
      expect(cp[0]!.n).toBeGreaterThan(0);

      // 2. a crash: publish throws after some more pages
      let left = 5;
      const crashing: Bus = {
        publish: async (b) => {
          if (left-- <= 0) throw new Error("injected crash in publish");
          await store.bus.publish(b);
        },
        close: async () => {},
      };
      await expect(runBackfill({ ...deps, bus: crashing }, { since: ALL, configs: chain.configAddresses, coins: true, pageSize: 200 })).rejects.toThrow(/injected crash/);
      const midway = await counts();
      expect(midway.transactions).toBeGreaterThan(0);
      expect(midway.transactions).toBeLessThan(chain.signatures.length);

      // 3. resumed from the checkpoints with a working bus
      const open = await deps.sql<{ address: string; before_signature: string }[]>`
        SELECT address, before_signature FROM backfill_checkpoints
        WHERE address = ANY(${chain.configAddresses}::text[]) AND NOT done AND before_signature IS NOT NULL`;
      expect(open.length).toBeGreaterThan(0);
      const mark = rpc.calls.length;
      const resumed = await runBackfill(deps, { since: ALL, configs: chain.configAddresses, coins: true, pageSize: 200 });
      expect(resumed.stopped).toBe(false);
      expect(await counts()).toMatchObject(reference);
      // it went on from each cursor instead of starting over from the newest signature
      const listed = rpc.calls.slice(mark).filter((c) => c.method === "getSignaturesForAddress");
      for (const cp of open) {
        const first = listed.find((c) => c.params[0] === cp.address)!;
        expect((first.params[1] as { before?: string }).before).toBe(cp.before_signature);
      }
    } finally {
      rpc.stop();
    }
  });

  test("(c) re-running the same range changes nothing; a finished range is skipped unless restarted", async () => {
    const { chain, rpc, deps, counts, calls } = await setup(404, 2000);
    try {
      await runBackfill(deps, { since: ALL, configs: chain.configAddresses, coins: true });
      const once = await counts();
      const fetched = calls("getTransaction");
      const listed = calls("getSignaturesForAddress");

      const again = await runBackfill(deps, { since: ALL, configs: chain.configAddresses, coins: true });
      expect(again.stats.addressesSkipped).toBe(again.stats.addressesTotal);
      expect(calls("getSignaturesForAddress")).toBe(listed);
      expect(calls("getTransaction")).toBe(fetched);

      // restarted and re-delivering every transaction (not skipping stored ones): the gate keeps the counts
      const redo = await runBackfill(deps, { since: ALL, configs: chain.configAddresses, coins: true, restart: true, skipStored: false });
      expect(redo.stats.addressesSkipped).toBe(0);
      expect(redo.stats.published).toBeGreaterThanOrEqual(chain.signatures.length);
      expect(await counts()).toEqual(once);
      expect(once).toMatchObject({ trades: chain.expected.trades, claims: chain.expected.claims, burns: chain.expected.burns, transactions: chain.signatures.length });
    } finally {
      rpc.stop();
    }
  });

  test("(d) webhook and backfill overlapping: every fact counted once", async () => {
    const { chain, rpc, deps, counts, store, engines } = await setup(405, 3000);
    try {
      // the webhook delivered every other transaction
      const half = chain.enhanced.filter((_, i) => i % 2 === 0);
      for (let i = 0; i < half.length; i += 100) await store.bus.publish(toEnvelopes(half.slice(i, i + 100), "helius"));
      // the backfill re-delivers all of them (stored ones included), in pages that cross the webhook's
      await runBackfill(deps, { since: ALL, configs: chain.configAddresses, coins: true, skipStored: false, pageSize: 300 });
      expect(await counts()).toMatchObject({
        trades: chain.expected.trades,
        candle_trades: chain.expected.trades,
        market_trades: chain.expected.trades,
        claims: chain.expected.claims,
        burns: chain.expected.burns,
        transactions: chain.signatures.length,
        transaction_rows: chain.signatures.length,
      });
      const sources = await engines.ch.query<{ source: string; n: string }>(
        "SELECT source, toString(count()) AS n FROM transactions WHERE signature IN {s:Array(String)} GROUP BY source ORDER BY source",
        { s: chain.signatures },
      );
      expect(sources).toEqual([
        { source: "backfill", n: String(chain.signatures.length - half.length) },
        { source: "helius", n: String(half.length) },
      ]);
    } finally {
      rpc.stop();
    }
  });

  test("(e) HTTP 429 and transient RPC errors are retried with backoff", async () => {
    const { chain, rpc, deps, counts } = await setup(406, 1000);
    try {
      rpc.failNext(4, { status: 429, retryAfter: "0" });
      rpc.failNext(2, { rpcError: { code: -32005, message: "Node is behind by 42 slots" } });
      rpc.failNext(2, { status: 503 });
      const retried: string[] = [];
      const reader = createChainReader(rpc.url, { ...fastRetries, onRetry: (r) => retried.push(r.reason) });
      await runBackfill({ ...deps, reader }, { since: ALL, configs: chain.configAddresses, coins: true, pageSize: 250 });
      expect(retried.length).toBe(8);
      expect(retried.filter((r) => r.includes("HTTP 429"))).toHaveLength(4);
      expect(await counts()).toMatchObject({ trades: chain.expected.trades, claims: chain.expected.claims, burns: chain.expected.burns, transactions: chain.signatures.length });

      // Retry-After is honored
      rpc.failNext(1, { status: 429, retryAfter: "1" });
      const t = performance.now();
      await reader.signatures(chain.configAddresses[0]!, { limit: 1 });
      expect(performance.now() - t).toBeGreaterThanOrEqual(950);

      // bounded: past the attempts the error surfaces; a permanent error is not retried
      const bounded = createChainReader(rpc.url, { ...fastRetries, maxAttempts: 3 });
      rpc.failNext(3, { status: 429 });
      await expect(bounded.signatures(chain.configAddresses[0]!, { limit: 1 })).rejects.toThrow(/HTTP 429/);
      const before = rpc.calls.length;
      rpc.failNext(1, { status: 400 });
      await expect(bounded.signatures(chain.configAddresses[0]!, { limit: 1 })).rejects.toThrow(/HTTP 400/);
      expect(rpc.calls.length).toBe(before + 1);
      // a transaction the node does not have yet (null) is retried too, then reported
      await expect(bounded.transaction("1111111111111111111111111111111111111111111111111111111111111111")).rejects.toThrow(/no result yet/);
    } finally {
      rpc.stop();
    }
  });

  test("(f) the treasury's addresses are walked with the configs: payouts that name no platform address are stored", async () => {
    const engines = await testEngines();
    const chain = simulatedChain(406, 400);
    const treasury = newAddress();
    const at = 1_750_000_000;
    const payouts = [payout(treasury, newAddress(), 9_000_000n, at), payout(chain.registry.all[0]!.feeClaimer, newAddress(), 4_000_000n, at + 1)];
    const rpc = startRpcTestDouble(new Map(), { transactions: [...chain.ledger, ...payouts.map(enhancedToRaw)] });
    const store = await buildStorage(engines, chain.registry, createLogger("error"), { treasury: { treasuryAddress: treasury, platformTokenMint: null } });
    const deps = { reader: createChainReader(rpc.url, fastRetries), bus: store.bus, stored: store.stored, ch: engines.ch, sql: engines.sql };
    const flows = async () =>
      (await engines.ch.query<{ treasury: string; lamports: string }>(
        "SELECT treasury, toString(lamports) AS lamports FROM treasury_flows WHERE signature IN {s:Array(String)} ORDER BY at",
        { s: payouts.map((t) => t.signature) },
      )).map((r) => [r.treasury, r.lamports]);
    // a range of its own: the fee claimer (the fixture config's) is every simulated chain's, walked by other tests too
    const since: Since = { kind: "slot", slot: 406 };
    try {
      await runBackfill(deps, { since, configs: chain.configAddresses, pageSize: 200 });
      expect(await flows()).toEqual([]);
      const walk = treasuryAddresses(chain.registry, treasury);
      expect(walk).toEqual([treasury, chain.registry.all[0]!.feeClaimer].sort());
      const r = await runBackfill(deps, { since, configs: chain.configAddresses, treasury: walk, pageSize: 200 });
      expect(r.stats.published).toBe(2);
      expect(await flows()).toEqual([[treasury, "9000000"], [chain.registry.all[0]!.feeClaimer, "4000000"]]);
      const rows = await deps.sql`SELECT address, kind, done FROM backfill_checkpoints WHERE address = ANY(${walk}::text[]) AND since = ${sinceKey(since)} ORDER BY address`;
      expect(rows.map((x) => [x.address, x.kind, x.done])).toEqual(walk.map((a) => [a, "treasury", true]));

      // nothing stored counts (as with Kafka before the pipelines store): the fee claimer's partner
      // claims, published by the config walks, are not fetched and sent again by the treasury's
      const sent: string[] = [];
      const recording: Bus = { publish: async (b) => void sent.push(...b.map((e) => e.signature)), close: async () => {} };
      const again = await runBackfill({ ...deps, bus: recording }, { since: { kind: "slot", slot: 407 }, configs: chain.configAddresses, treasury: walk, pageSize: 200, skipStored: false });
      const partnerClaims = chain.enhanced.filter((t) => t.feePayer === chain.registry.all[0]!.feeClaimer).length;
      expect(partnerClaims).toBeGreaterThan(0);
      expect(new Set(sent).size).toBe(sent.length);
      expect(sent.length).toBe([...chain.enhanced, ...payouts].filter((t) => names(t, [...chain.configAddresses, ...walk])).length);
      expect(again.stats.published).toBe(sent.length);
    } finally {
      rpc.stop();
    }
  }, 60_000);
});
