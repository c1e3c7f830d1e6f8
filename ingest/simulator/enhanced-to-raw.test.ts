import { describe, expect, test } from "bun:test";
import { createSimulator, fixtureSimConfigs } from ".";
import { toEnvelopes } from "../helius/handle";
import { normalizeRpcTransaction } from "../normalize";
import { enhancedToRaw } from "./enhanced-to-raw";

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
});
