import { describe, expect, test } from "bun:test";
import { decodeBase58, encodeBase58 } from "./base58";
import { EVENT_IX_TAG, discriminatorHex, isEventCpi } from "./event-cpi";
import { eventDiscriminatorOfText } from "./event-text";
import { DAMM_V2, DBC } from "./program-coder";
import { FIXTURE_NAMES, readFixture } from "./testing";
import { createSimulator, fixtureSimConfigs } from "../simulator";
import { normalizeWebhookTransaction } from "../normalize";
import { decodeTransaction } from "./index";
import { base58Text, Base58Instruction } from "../base58-instruction";
import type { ChainTransaction } from "../transaction";

/** What decoding the text gives: the discriminator of a known event-CPI of the program, else null. */
function byDecoding(events: ReadonlyMap<string, string>, text: string): string | null {
  const bytes = decodeBase58(text)!;
  if (!isEventCpi(bytes)) return null;
  const hex = discriminatorHex(bytes, 8);
  return events.has(hex) ? hex : null;
}

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));

function texts(txs: ChainTransaction[]): { program: typeof DBC; text: string }[] {
  const out: { program: typeof DBC; text: string }[] = [];
  for (const tx of txs)
    for (const outer of tx.instructions)
      for (const ins of [outer, ...outer.inner]) {
        const program = ins.programId === DBC.programId ? DBC : ins.programId === DAMM_V2.programId ? DAMM_V2 : null;
        const text = base58Text(ins);
        if (program && text !== null) out.push({ program, text });
      }
  return out;
}

describe("an event-CPI's discriminator from its base58 text", () => {
  test("a length is told only once texts of it were seen `after` times; null (decode it) until then", () => {
    const events = new Map([...DBC.eventByDiscriminator].slice(0, 2));
    const [disc] = [...events.keys()];
    const bytes = new Uint8Array(120);
    bytes.set([...EVENT_IX_TAG, ...hexBytes(disc!)]);
    const text = encodeBase58(bytes);
    for (let i = 0; i < 3; i++) expect(eventDiscriminatorOfText(events, text, 3)).toBeNull();
    expect(eventDiscriminatorOfText(events, text, 3)).toBe(disc!);
    expect(eventDiscriminatorOfText(events, text, 3)).toBe(disc!);
  });

  test("the real chain fixtures: every DBC and DAMM v2 instruction, as decoding tells", async () => {
    const txs: ChainTransaction[] = [];
    for (const name of FIXTURE_NAMES) {
      const r = normalizeWebhookTransaction(await readFixture(name));
      if (!r.ok) throw new Error(r.reason);
      txs.push(r.tx);
    }
    const all = texts(txs);
    let events = 0;
    for (const { program, text } of all) {
      const want = byDecoding(program.eventByDiscriminator, text);
      expect(eventDiscriminatorOfText(program.eventByDiscriminator, text, 0)).toBe(want);
      if (want !== null) events++;
    }
    expect(events).toBeGreaterThan(5);
    expect(all.length).toBeGreaterThan(events);
  });

  test("simulated traffic: every event is told from its text, every other instruction is not taken for one", () => {
    const sim = createSimulator({ seed: 4242, configs: fixtureSimConfigs(4242), startTime: 1_700_000_000, secondsPerTx: 1, pools: 20 });
    const txs = (sim.next(300) as unknown[]).map((e) => {
      const r = normalizeWebhookTransaction(JSON.parse(JSON.stringify(e)));
      if (!r.ok) throw new Error(r.reason);
      return r.tx;
    });
    const names = new Set<string>();
    for (const { program, text } of texts(txs)) {
      const want = byDecoding(program.eventByDiscriminator, text);
      expect(eventDiscriminatorOfText(program.eventByDiscriminator, text, 0)).toBe(want);
      if (want !== null) names.add(program.eventByDiscriminator.get(want)!);
    }
    expect([...names]).toContain("EvtSwap2");
    expect([...names]).toContain("EvtSwap");
  });

  test("at the edges of a prefix's range: the prefix then all zero or all 0xff bytes, and one past either side", () => {
    const events = DBC.eventByDiscriminator;
    const swap2 = [...events].find(([, name]) => name === "EvtSwap2")![0];
    const prefix = Uint8Array.from([...EVENT_IX_TAG, ...hexBytes(swap2)]);
    for (const length of [16, 17, 40, 100, 180, 233, 267, 400]) {
      const low = new Uint8Array(length);
      low.set(prefix);
      const high = new Uint8Array(length).fill(0xff);
      high.set(prefix);
      expect(eventDiscriminatorOfText(events, encodeBase58(low), 0)).toBe(swap2);
      expect(eventDiscriminatorOfText(events, encodeBase58(high), 0)).toBe(swap2);
      // one below the lowest: the prefix's last byte minus one, then all 0xff
      const under = high.slice();
      under[15]! -= 1;
      // one above the highest: the prefix's last byte plus one, then all zeros
      const over = low.slice();
      over[15]! += 1;
      for (const bytes of [under, over]) {
        const text = encodeBase58(bytes);
        expect(eventDiscriminatorOfText(events, text, 0)).toBe(byDecoding(events, text));
        expect(eventDiscriminatorOfText(events, text, 0)).not.toBe(swap2);
      }
    }
  });

  test("random data, event-like or not, agrees with decoding", () => {
    // a table of its own (ranges are kept per table and text length, for at most 256 lengths)
    const events = new Map([...DBC.eventByDiscriminator].slice(0, 6));
    const known = [...events.keys()];
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) & 0xff;
    for (let i = 0; i < 1500; i++) {
      const bytes = Uint8Array.from({ length: 1 + (rand() % 120) }, rand);
      // most carry a known prefix, some with one byte changed in it
      if (bytes.length >= 16 && i % 4 !== 0) {
        bytes.set(EVENT_IX_TAG);
        bytes.set(hexBytes(known[rand() % known.length]!), 8);
        if (i % 4 === 1) {
          const at = rand() % 16;
          bytes[at] = bytes[at]! ^ (1 << rand() % 8);
        }
      }
      const text = encodeBase58(bytes);
      expect(eventDiscriminatorOfText(events, text, 0)).toBe(byDecoding(events, text));
    }
  });
});

describe("instructions keep their data as base58 until it is read", () => {
  test("a legacy EvtSwap beside an EvtSwap2 is never decoded; alone, it is, and gives the trade", async () => {
    // the walker tells a text length once it has seen it 64 times (event-text.ts `after`)
    const element = await readFixture("dbc-buy.enhanced.json");
    for (let i = 0; i < 70; i++) decodeTransaction((normalizeWebhookTransaction(element) as { tx: ChainTransaction }).tx);
    for (const alone of [false, true]) {
      const r = normalizeWebhookTransaction(await readFixture("dbc-buy.enhanced.json"));
      if (!r.ok) throw new Error(r.reason);
      const swap = r.tx.instructions.find((o) => o.programId === DBC.programId)!;
      const names = swap.inner.map((i) => {
        const text = base58Text(i)!;
        return i.programId === DBC.programId ? DBC.eventByDiscriminator.get(discriminatorHex(decodeBase58(text)!, 8)) : undefined;
      });
      const legacy = swap.inner[names.indexOf("EvtSwap")]! as Base58Instruction;
      if (alone) swap.inner.splice(names.indexOf("EvtSwap2"), 1);
      // count the reads of the legacy event's data
      let reads = 0;
      const read = Object.getOwnPropertyDescriptor(Base58Instruction.prototype, "data")!.get!;
      Object.defineProperty(legacy, "data", { get: () => (reads++, read.call(legacy)) });
      const trades = decodeTransaction(r.tx).facts.filter((f) => f.kind === "trade");
      expect(trades).toHaveLength(1);
      expect(trades[0]!.inner).toBe(alone ? names.indexOf("EvtSwap") : names.indexOf("EvtSwap2"));
      expect(reads > 0).toBe(alone);
    }
  });

  test("data decodes to the text's bytes once; setting data replaces the text", () => {
    const bytes = Uint8Array.of(0, 0, 1, 2, 3, 250, 255);
    const ins = new Base58Instruction("p", [], encodeBase58(bytes));
    expect(base58Text(ins)).toBe(encodeBase58(bytes));
    expect(ins.data).toEqual(bytes);
    expect(ins.data).toBe(ins.data);
    const patched = Uint8Array.of(9, 9);
    ins.data = patched;
    expect(ins.data).toBe(patched);
    expect(base58Text(ins)).toBeNull();
    expect(base58Text({ programId: "p", accounts: [], data: bytes })).toBeNull();
  });

  test("normalize still refuses data that is not base58, in an instruction no decoder reads", async () => {
    const element = await readFixture("dbc-buy.enhanced.json");
    const i = (element.instructions as { programId: string }[]).findIndex((ix) => ix.programId !== DBC.programId);
    element.instructions[i].data = "0OIl";
    const r = normalizeWebhookTransaction(element);
    expect(r).toEqual({ ok: false, reason: `instructions[${i}].data: data is not base58` });
  });
});
