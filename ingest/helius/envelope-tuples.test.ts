import { describe, expect, test } from "bun:test";
import { fromTuples, toTuples } from "./envelope-tuples";
import { decodeWebhookText } from "./handle";
import { createSimulator, fixtureSimConfigs } from "../simulator";
import { FIXTURE_NAMES, readFixture } from "../decoders/testing";
import type { TxEnvelope } from "../contract/envelope";

/** What the main thread gets: the tuples through a structured clone, as postMessage sends them. */
const across = (envelopes: TxEnvelope[]) => fromTuples(structuredClone(toTuples(envelopes)));

function decoded(elements: unknown[]): TxEnvelope[] {
  const r = decodeWebhookText(JSON.stringify(elements), "helius", 1_700_000_000_000);
  if (!r.ok) throw new Error(r.message);
  return r.envelopes;
}

describe("envelopes as tuples across the worker boundary", () => {
  test("the real chain fixtures and simulated traffic come back equal, key order and bigints included", async () => {
    const fixtures = await Promise.all(FIXTURE_NAMES.map(readFixture));
    const sim = createSimulator({ seed: 5151, configs: fixtureSimConfigs(5151), startTime: 1_700_000_000, secondsPerTx: 1, pools: 10 });
    // and an element not understood (kept raw) and a failed transaction
    const odd = [{ signature: "notATransaction" }, { ...fixtures[0], signature: "failedOne", transactionError: { InstructionError: [0, "Custom"] } }];
    for (const envelopes of [decoded(fixtures), decoded(sim.next(300) as unknown[]), decoded(odd)]) {
      const back = across(envelopes);
      expect(Bun.deepEquals(back, envelopes, true)).toBe(true);
      for (let i = 0; i < envelopes.length; i++) {
        expect(Object.keys(back[i]!)).toEqual(Object.keys(envelopes[i]!));
        for (let j = 0; j < envelopes[i]!.facts.length; j++) expect(Object.keys(back[i]!.facts[j]!)).toEqual(Object.keys(envelopes[i]!.facts[j]!));
      }
    }
  });

  test("objects of one kind with different keys, undefined values and odd key names keep exactly theirs", () => {
    const base = { source: "helius", receivedAt: 1, signature: "s", slot: 2, blockTime: 3, status: "decoded", unknownCount: 0, errorCount: 0, detail: "", payload: "" } as const;
    const envelopes = [
      { ...base, facts: [{ kind: "trade", a: 1n, b: undefined }, { kind: "trade", a: 2n }, { kind: "trade", b: "x", a: 3n }] },
      { ...base, facts: [] },
      { ...base, facts: [{ kind: "burn", ["__proto__"]: 5, "with space": [1, 2], "0": "zero" }] },
    ] as unknown as TxEnvelope[];
    // a literal's "__proto__" sets the prototype: make it an own property, as a structured clone would
    Object.defineProperty(envelopes[2]!.facts[0]!, "__proto__", { value: 5, enumerable: true, writable: true, configurable: true });
    const back = across(envelopes);
    expect(Bun.deepEquals(back, envelopes, true)).toBe(true);
    expect(Object.keys(back[0]!.facts[0]!)).toEqual(["kind", "a", "b"]);
    expect("b" in back[0]!.facts[1]!).toBe(false);
    expect(Object.keys(back[0]!.facts[2]!)).toEqual(["kind", "b", "a"]);
    expect(Object.getOwnPropertyDescriptor(back[2]!.facts[0]!, "__proto__")?.value).toBe(5);
    expect(Object.getPrototypeOf(back[2]!.facts[0]!)).toBe(Object.prototype);
  });
});
