import { describe, expect, test } from "bun:test";
import { createSimulator, fixtureSimConfigs } from ".";
import { toEnvelopes } from "../helius/handle";
import { normalizeRpcTransaction, normalizeWebhookTransaction } from "../normalize";
import { enhancedSequenceToRaw, enhancedToRaw, runningBalances, STARTING_LAMPORTS } from "./enhanced-to-raw";

const byAccount = <T extends { account: string }>(list: T[]) => [...list].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));

describe("enhancedToRaw", () => {
  test("the raw (RPC json) form decodes to the same facts as the enhanced form", () => {
    const sim = createSimulator({ seed: 301, configs: fixtureSimConfigs(301), pools: 6, secondsPerTx: 0.1 });
    const enhanced = sim.next(3000);
    const raw = enhanced.map(enhancedToRaw);
    for (const r of raw.slice(0, 50)) expect(normalizeRpcTransaction(r).ok).toBe(true);
    const a = toEnvelopes(enhanced, "backfill", 0);
    const b = toEnvelopes(raw, "backfill", 0);
    expect(b.map((e) => e.status)).toEqual(a.map((e) => e.status));
    expect(b.map((e) => e.facts)).toEqual(a.map((e) => e.facts));
    expect(b.map((e) => [e.signature, e.slot, e.blockTime])).toEqual(a.map((e) => [e.signature, e.slot, e.blockTime]));
    // every kind of transaction the simulator makes was covered
    const kinds = new Set(a.flatMap((e) => e.facts.map((f) => f.kind)));
    for (const k of ["pool_created", "trade", "curve_complete", "migration", "fee_claim", "burn"] as const) expect(kinds).toContain(k);
    expect(a.every((e) => e.status === "decoded")).toBe(true);
  });

  test("meta's pre/post balances differ exactly by the enhanced accountData, carried across a sequence", () => {
    const sim = createSimulator({ seed: 302, configs: fixtureSimConfigs(302), pools: 4, recordLedger: true });
    const enhanced = sim.next(2500);
    const running = runningBalances();
    let withTokens = 0;
    const raw = enhancedSequenceToRaw(enhanced, running);
    for (const [i, e] of enhanced.entries()) {
      const r = raw[i]!;
      const fromRaw = normalizeRpcTransaction(r);
      const fromEnhanced = normalizeWebhookTransaction(JSON.parse(JSON.stringify(e)));
      if (!fromRaw.ok || !fromEnhanced.ok) throw new Error("normalize refused a simulated transaction");
      expect(byAccount(fromRaw.tx.tokenBalances)).toEqual(byAccount(fromEnhanced.tx.tokenBalances));
      expect(byAccount(fromRaw.tx.nativeBalances)).toEqual(byAccount(fromEnhanced.tx.nativeBalances));
      expect(fromRaw.tx.fee).toBe(e.fee);
      for (const b of [...r.meta.preTokenBalances, ...r.meta.postTokenBalances]) expect(BigInt(b.uiTokenAmount.amount)).toBeGreaterThanOrEqual(0n);
      if (r.meta.postTokenBalances.length) withTokens++;
    }
    expect(withTokens).toBeGreaterThan(2000);
    // carried balances end where the simulator's ledger does (every account starts empty in a fresh world)
    for (const [account, b] of sim.state().ledger.accounts!) expect(running.atoms.get(account)).toBe(b.amount);
    // SOL: an account's post balance is its start plus every change it saw
    const payer = enhanced[0]!.feePayer;
    const total = enhanced.reduce((s, e) => s + BigInt(e.accountData.find((a) => a.account === payer)?.nativeBalanceChange ?? 0), 0n);
    expect(running.lamports.get(payer)).toBe(STARTING_LAMPORTS + total);
  });
});
