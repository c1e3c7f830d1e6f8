import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { FIXTURES_DIR } from "../../infra/testing/fixtures";
import { decodeWebhookText } from "../../ingest/helius/handle";
import type { TxEnvelope } from "../../ingest/contract/envelope";
import type { KafkaMessage } from "kafkajs";
import { decodeEnvelope, dlqTopic, encodeEnvelope, encodeMessage, partitionKey } from "./topics";
import { splitBatch } from "./consumer";
import { factToJson } from "../classify";

function fixtureEnvelopes(): TxEnvelope[] {
  const dir = `${FIXTURES_DIR}helius-devnet`;
  const body = readdirSync(dir).sort().map((name) => JSON.parse(readFileSync(`${dir}/${name}`, "utf8")));
  const out = decodeWebhookText(JSON.stringify([...body, { signature: "9".repeat(88), junk: true }]), "helius", 1_700_000_000_000);
  if (!out.ok) throw new Error(out.message);
  return out.envelopes;
}

describe("topic messages", () => {
  test("every envelope of the real fixtures survives encoding, bigints and all", () => {
    const envelopes = fixtureEnvelopes();
    expect(envelopes.some((e) => e.facts.some((f) => Object.values(f).some((v) => typeof v === "bigint")))).toBe(true);
    for (const env of envelopes) {
      expect(decodeEnvelope(Buffer.from(encodeMessage(env)))).toEqual(env);
      expect(decodeEnvelope(Buffer.from(encodeEnvelope(env)))).toEqual(env);
    }
  });

  test("the published form: bigints as decimal strings named per fact, no $bigint objects", () => {
    const env = fixtureEnvelopes().find((e) => e.facts.some((f) => Object.values(f).some((v) => typeof v === "bigint")))!;
    const text = encodeMessage(env);
    expect(text).not.toContain("$bigint");
    const parsed = JSON.parse(text) as { facts: Record<string, unknown>[]; bigints: string[][] };
    expect(parsed.bigints).toHaveLength(env.facts.length);
    env.facts.forEach((f, i) => {
      const expected = Object.entries(f).filter(([, v]) => typeof v === "bigint");
      expect(parsed.bigints[i]).toEqual(expected.map(([k]) => k));
      for (const [k, v] of expected) expect(parsed.facts[i]![k]).toBe(String(v));
      expect(Object.keys(parsed.facts[i]!)).not.toContainAnyValues(["signature", "slot", "blockTime"]);
    });
    // a fact whose fields differ from its envelope's keeps its own
    const odd = { ...env, facts: [{ ...env.facts[0]!, slot: env.slot + 1 }] };
    expect(decodeEnvelope(Buffer.from(encodeMessage(odd)))).toEqual(odd);
  });

  test("facts leave out their transaction's signature, slot and block time; messages of the earlier form (facts whole) still decode", () => {
    const envelopes = fixtureEnvelopes().filter((e) => e.facts.length > 0);
    expect(envelopes.length).toBeGreaterThan(0);
    for (const env of envelopes) {
      const encoded = JSON.parse(encodeEnvelope(env)) as { facts: Record<string, unknown>[] };
      for (const f of encoded.facts) expect(Object.keys(f)).not.toContainAnyValues(["signature", "slot", "blockTime"]);
      const earlier = JSON.stringify({ ...env, facts: env.facts.map(factToJson) });
      expect(decodeEnvelope(Buffer.from(earlier))).toEqual(env);
    }
    // a fact whose fields differ from its envelope's keeps its own
    const env = envelopes[0]!;
    const odd = { ...env, facts: [{ ...env.facts[0]!, slot: env.slot + 1 }] };
    expect(decodeEnvelope(Buffer.from(encodeEnvelope(odd)))).toEqual(odd);
  });

  test("the partition key is the coin a transaction concerns, else its signature", () => {
    const envelopes = fixtureEnvelopes();
    for (const env of envelopes) {
      const withMint = env.facts.find((f) => "mint" in f && f.mint) as { mint: string } | undefined;
      expect(partitionKey(env)).toBe(withMint ? withMint.mint : env.signature);
    }
    const undecodable = envelopes.at(-1)!;
    expect(undecodable.status).toBe("undecodable");
    expect(partitionKey(undecodable)).toBe("9".repeat(88));
  });

  test("a malformed message is refused with the reason", () => {
    const good = JSON.parse(encodeEnvelope(fixtureEnvelopes()[0]!));
    const bad = (patch: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...good, ...patch }));
    expect(() => decodeEnvelope(null)).toThrow("empty message value");
    expect(() => decodeEnvelope(Buffer.from("{not json"))).toThrow();
    expect(() => decodeEnvelope(bad({ signature: 5 }))).toThrow("field signature is not a string");
    expect(() => decodeEnvelope(bad({ slot: "1" }))).toThrow("field slot is not a number");
    expect(() => decodeEnvelope(bad({ slot: null }))).toThrow("field slot is not a number");
    expect(() => decodeEnvelope(bad({ facts: {} }))).toThrow("field facts is not an array");
    expect(() => decodeEnvelope(bad({ status: "maybe" }))).toThrow("unknown status maybe");
    expect(() => decodeEnvelope(bad({ facts: [5] }))).toThrow("a fact is not an object");
    expect(() => decodeEnvelope(bad({ facts: [{ kind: "trade", amountQuote: { $bigint: "1.5" } }] }))).toThrow();
    expect(() => decodeEnvelope(Buffer.from("[1,2]"))).toThrow("the message is not an object");
    // the published form
    const withBigints = fixtureEnvelopes().find((e) => e.facts.some((f) => f.kind === "trade"))!;
    const published = JSON.parse(encodeMessage(withBigints)) as { facts: Record<string, unknown>[]; bigints: string[][] };
    const badPublished = (patch: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...published, ...patch }));
    const key = published.bigints.flat()[0]!;
    const at = published.bigints.findIndex((b) => b.includes(key));
    const withFact = (value: unknown) => published.facts.map((f, i) => (i === at ? { ...f, [key]: value } : f));
    expect(() => decodeEnvelope(badPublished({ bigints: [] }))).toThrow("field bigints is not an array of one list per fact");
    expect(() => decodeEnvelope(badPublished({ facts: withFact(5) }))).toThrow(`field ${key} of a fact is not a bigint`);
    expect(() => decodeEnvelope(badPublished({ facts: withFact("1.5") }))).toThrow();
    expect(() => decodeEnvelope(badPublished({ facts: published.facts.map(() => 5) }))).toThrow("a fact is not an object");
  });

  test("each topic has a dead-letter twin", () => {
    expect(dlqTopic("chain.transactions")).toBe("chain.transactions.dlq");
  });
});

describe("splitting a fetched batch", () => {
  const message = (value: string | null, offset: number): KafkaMessage =>
    ({ key: Buffer.from("k"), value: value === null ? null : Buffer.from(value), offset: String(offset), timestamp: "0", attributes: 0, headers: {} }) as KafkaMessage;

  test("good messages become envelopes in order, each paired with its message; bad ones become dead letters with the reason", () => {
    const envelopes = fixtureEnvelopes();
    const messages = [message(encodeMessage(envelopes[0]!), 0), message("{oops", 1), message(encodeEnvelope(envelopes[1]!), 2), message(null, 3)];
    const out = splitBatch(messages);
    expect(out.envelopes).toEqual([envelopes[0]!, envelopes[1]!]);
    expect(out.from.map((m) => m.offset)).toEqual(["0", "2"]);
    expect(out.dead.map((d) => [d.message.offset, d.step])).toEqual([["1", "decode-envelope"], ["3", "decode-envelope"]]);
    expect(out.dead[1]!.reason).toBe("empty message value");
  });
});
