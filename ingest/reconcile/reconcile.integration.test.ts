import { until } from "../../infra/testing/wait";
import { describe, expect, test } from "bun:test";
import { testEngines } from "../../infra/testing/engines";
import { startRpcTestDouble } from "../../infra/testing/rpc-double";
import { createLogger } from "../../infra/log";
import { toEnvelopes } from "../helius/handle";
import { createChainReader } from "../backfill/rpc";
import { inProcessStore, simulatedChain, storedCounts } from "../../compose/testing/test-chain";
import { reconcileOnce, RECONCILE_LOCK, scheduleReconciliation } from "./reconcile";
import { buildStorage } from "../../compose/storage";
import { newAddress, payout } from "../../compose/testing/treasury-payloads";
import { enhancedToRaw } from "../simulator/enhanced-to-raw";

describe("reconciliation", () => {
  test("(f) heals transactions the webhook missed; a second concurrent run skips on the advisory lock", async () => {
    const engines = await testEngines();
    const chain = simulatedChain(501, 2500);
    const rpc = startRpcTestDouble(new Map(), { transactions: chain.ledger });
    const store = await inProcessStore(engines, chain);
    try {
      // The webhook delivered everything but a few recent trades (on the curve and on DAMM v2).
      const envelopes = toEnvelopes(chain.enhanced, "helius");
      const recentTrades = envelopes
        .map((e, i) => ({ e, i }))
        .filter(({ e, i }) => i >= chain.enhanced.length - 120 && e.facts.some((f) => f.kind === "trade"));
      const missed = new Set(recentTrades.filter((_, k) => k % 4 === 0).map(({ e }) => e.signature));
      const venues = new Set(recentTrades.filter(({ e }) => missed.has(e.signature)).flatMap(({ e }) => e.facts.flatMap((f) => (f.kind === "trade" ? [f.venue] : []))));
      expect(venues).toEqual(new Set(["dbc", "damm_v2"]));
      for (let i = 0; i < envelopes.length; i += 200) await store.bus.publish(envelopes.slice(i, i + 200).filter((e) => !missed.has(e.signature)));
      const counts = () => storedCounts(engines.ch, chain.mints, chain.signatures);
      const gap = await counts();
      expect(gap.trades).toBe(chain.expected.trades - missed.size);

      const deps = { sql: engines.sql, ch: engines.ch, reader: createChainReader(rpc.url, { baseDelayMs: 1 }), bus: store.bus, stored: store.stored, configs: chain.registry, log: createLogger("error") };
      await store.sink.settled(); // in-flight marks gone (a marked transaction counts as missing)
      const healed = await reconcileOnce(deps);
      expect(healed).toMatchObject({ skipped: false, missing: missed.size, ingested: missed.size, fetchFailed: 0 });
      const after = await counts();
      expect(after).toMatchObject({ trades: chain.expected.trades, candle_trades: chain.expected.trades, market_trades: chain.expected.trades, transactions: chain.signatures.length, transaction_rows: chain.signatures.length });
      const sources = await engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM transactions WHERE source = 'reconcile' AND signature IN {s:Array(String)}", { s: chain.signatures });
      expect(Number(sources[0]!.n)).toBe(missed.size);

      // Nothing left to heal: a second run fetches nothing.
      const fetchedBefore = rpc.calls.filter((c) => c.method === "getTransaction").length;
      await store.sink.settled();
      expect(await reconcileOnce(deps)).toMatchObject({ skipped: false, missing: 0 });
      expect(rpc.calls.filter((c) => c.method === "getTransaction").length).toBe(fetchedBefore);
      expect(await counts()).toEqual(after);

      // Two at once (as two processes would): one runs, the other skips.
      rpc.setDelay(20);
      const both = await Promise.all([reconcileOnce(deps), reconcileOnce(deps)]);
      rpc.setDelay(0);
      expect(both.filter((r) => r.skipped)).toHaveLength(1);
      // and while another session holds the lock, a run skips; released, it runs again
      const other = await engines.sql.reserve();
      try {
        await other`SELECT pg_advisory_lock(${RECONCILE_LOCK})`;
        expect(await reconcileOnce(deps)).toEqual({ skipped: true });
        await other`SELECT pg_advisory_unlock(${RECONCILE_LOCK})`;
      } finally {
        other.release();
      }
      expect((await reconcileOnce(deps)).skipped).toBe(false);

      // scheduled (here every second instead of every two minutes): it runs on its own until stopped
      const listed = () => rpc.calls.filter((c) => c.method === "getSignaturesForAddress").length;
      const start = listed();
      const task = scheduleReconciliation(deps, "* * * * * *");
      await until("a scheduled run to list signatures", async () => (listed() > start ? true : undefined), 30_000);
      await task.stop();
      expect(await counts()).toEqual(after);
    } finally {
      rpc.stop();
    }
  }, 60_000);

  test("(g) the treasury's payouts the webhook missed are healed: TREASURY_ADDRESS and the configs' fee claimer are walked too", async () => {
    const engines = await testEngines();
    const chain = simulatedChain(502, 300);
    const treasury = newAddress();
    const feeClaimer = chain.registry.all[0]!.feeClaimer;
    // payouts name only the treasury and their recipient: no config, no pool
    const at = Math.floor(Date.now() / 1000) - 3600;
    const payouts = [payout(treasury, newAddress(), 25_000_000n, at), payout(feeClaimer, newAddress(), 7_000_000n, at + 1)];
    const rpc = startRpcTestDouble(new Map(), { transactions: [...chain.ledger, ...payouts.map(enhancedToRaw)] });
    const store = await buildStorage(engines, chain.registry, createLogger("error"), { treasury: { treasuryAddress: treasury, platformTokenMint: null } });
    try {
      const envelopes = toEnvelopes(chain.enhanced, "helius");
      for (let i = 0; i < envelopes.length; i += 200) await store.bus.publish(envelopes.slice(i, i + 200));
      const deps = { sql: engines.sql, ch: engines.ch, reader: createChainReader(rpc.url, { baseDelayMs: 1 }), bus: store.bus, stored: store.stored, configs: chain.registry, log: createLogger("error") };
      const flows = () =>
        engines.ch.query<{ treasury: string; recipient: string; lamports: string }>(
          "SELECT treasury, recipient, toString(lamports) AS lamports FROM treasury_flows WHERE signature IN {s:Array(String)} ORDER BY at",
          { s: payouts.map((t) => t.signature) },
        );

      // the sink removes in-flight marks after a write without holding up its callers, and a marked transaction counts as
      // missing until then (a redelivery is harmless, but the counts below would be off): each pass starts once they are gone
      const reconcile = async (d: typeof deps & { treasuryAddress?: string }) => {
        await store.sink.settled();
        return reconcileOnce(d);
      };
      // without TREASURY_ADDRESS only the fee claimer's payout is found
      expect(await reconcile(deps)).toMatchObject({ skipped: false, missing: 1, ingested: 1 });
      const walked = new Set(rpc.calls.filter((c) => c.method === "getSignaturesForAddress").map((c) => c.params[0]));
      expect(walked.has(feeClaimer)).toBe(true);
      expect(await flows()).toEqual([{ treasury: feeClaimer, recipient: payouts[1]!.instructions[0]!.accounts[1]!, lamports: "7000000" }]);

      expect(await reconcile({ ...deps, treasuryAddress: treasury })).toMatchObject({ skipped: false, missing: 1, ingested: 1 });
      expect(await flows()).toEqual([
        { treasury, recipient: payouts[0]!.instructions[0]!.accounts[1]!, lamports: "25000000" },
        { treasury: feeClaimer, recipient: payouts[1]!.instructions[0]!.accounts[1]!, lamports: "7000000" },
      ]);
      expect(await reconcile({ ...deps, treasuryAddress: treasury })).toMatchObject({ skipped: false, missing: 0 });
    } finally {
      rpc.stop();
    }
  }, 60_000);
});
