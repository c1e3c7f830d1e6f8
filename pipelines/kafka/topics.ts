/**
 * Kafka topics, named in one place. One message per chain transaction (its
 * envelope), keyed by the coin it concerns so one coin's events stay in order on
 * one partition. Each topic has a dead-letter twin `<topic>.dlq`. The name can be
 * changed with KAFKA_TOPIC (tests give each run its own).
 */
import type { TxEnvelope } from "../../ingest/contract/envelope";
import type { Fact } from "../../ingest/contract/facts";
import { bigintReplacer } from "../classify";

export const TOPICS = { transactions: "chain.transactions" } as const;
export const dlqTopic = (topic: string) => `${topic}.dlq`;

/** The mint a transaction is about (first fact's), else its signature: the partition key. */
export function partitionKey(env: TxEnvelope): string {
  for (const f of env.facts) if ("mint" in f && f.mint) return f.mint;
  return env.signature;
}

/**
 * One JSON text per envelope, the facts' bigints as `{"$bigint": "…"}` (the object form, kept
 * for dead letters stored in Postgres: readable as it is). A fact's signature, slot and block
 * time are left out where they are the envelope's (always, for decoded transactions): a third
 * of the bytes, and of the parsing.
 */
export function encodeEnvelope(env: TxEnvelope): string {
  const facts = env.facts.map((f) => {
    const { signature, slot, blockTime, ...rest } = f;
    return signature === env.signature && slot === env.slot && blockTime === env.blockTime ? rest : f;
  });
  return JSON.stringify({ ...env, facts }, bigintReplacer);
}

/**
 * What the bus publishes (since 2026-11-27): the same object, the facts' bigints as plain
 * decimal strings and `bigints` naming, per fact, the keys that hold one. It is stringified
 * without a replacer and parsed without a reviver or `$bigint` objects to unwrap: less CPU per
 * transaction each way (bench/kafka-codec-profile.ts). Signature, slot and block time are left
 * out of a fact as in encodeEnvelope.
 */
export function encodeMessage(env: TxEnvelope): string {
  const bigints: string[][] = [];
  const facts = env.facts.map((fact) => {
    const own = fact.signature !== env.signature || fact.slot !== env.slot || fact.blockTime !== env.blockTime;
    const out: Record<string, unknown> = {};
    const big: string[] = [];
    for (const k in fact) {
      const v = (fact as Record<string, unknown>)[k];
      if (!own && (k === "signature" || k === "slot" || k === "blockTime")) continue;
      if (typeof v === "bigint") {
        big.push(k);
        out[k] = v.toString();
      } else out[k] = v;
    }
    bigints.push(big);
    return out;
  });
  return JSON.stringify({ ...env, facts, bigints });
}

const STATUSES = new Set(["decoded", "partial", "failed", "undecodable"]);

/** Parses a message value back into an envelope (either form: encodeMessage's, or encodeEnvelope's with the facts whole or not); throws with a reason on anything malformed. */
export function decodeEnvelope(value: Buffer | null): TxEnvelope {
  if (!value) throw new Error("empty message value");
  const raw = JSON.parse(value.toString("utf8")) as Record<string, unknown>;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new Error("the message is not an object");
  const str = (k: string) => {
    if (typeof raw[k] !== "string") throw new Error(`field ${k} is not a string`);
    return raw[k] as string;
  };
  const num = (k: string) => {
    if (typeof raw[k] !== "number" || !Number.isFinite(raw[k])) throw new Error(`field ${k} is not a number`);
    return raw[k] as number;
  };
  if (!Array.isArray(raw.facts)) throw new Error("field facts is not an array");
  const status = str("status");
  if (!STATUSES.has(status)) throw new Error(`unknown status ${status}`);
  const signature = str("signature");
  const slot = num("slot");
  const blockTime = num("blockTime");
  return {
    source: str("source") as TxEnvelope["source"],
    receivedAt: num("receivedAt"),
    signature,
    slot,
    blockTime,
    status: status as TxEnvelope["status"],
    facts: raw.bigints === undefined ? raw.facts.map((f: unknown) => factOf(f, signature, slot, blockTime)) : factsWithBigints(raw.facts, raw.bigints, signature, slot, blockTime),
    unknownCount: num("unknownCount"),
    errorCount: num("errorCount"),
    detail: str("detail"),
    payload: str("payload"),
  };
}

/** A fact as parsed (flat: one level of `$bigint`s), with its transaction's fields where it left them out. */
function factOf(json: unknown, signature: string, slot: number, blockTime: number): Fact {
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new Error("a fact is not an object");
  const f = json as Record<string, unknown>;
  for (const k in f) {
    const v = f[k] as { $bigint?: unknown } | null;
    if (v !== null && typeof v === "object" && typeof v.$bigint === "string") f[k] = BigInt(v.$bigint);
  }
  f.signature ??= signature;
  f.slot ??= slot;
  f.blockTime ??= blockTime;
  return f as Fact;
}

/** encodeMessage's facts: `bigints[i]` names the keys of fact i that hold a bigint's decimal string. */
function factsWithBigints(facts: unknown[], bigints: unknown, signature: string, slot: number, blockTime: number): Fact[] {
  if (!Array.isArray(bigints) || bigints.length !== facts.length) throw new Error("field bigints is not an array of one list per fact");
  return facts.map((json, i) => {
    if (json === null || typeof json !== "object" || Array.isArray(json)) throw new Error("a fact is not an object");
    const f = json as Record<string, unknown>;
    const keys = bigints[i] as unknown;
    if (!Array.isArray(keys)) throw new Error("field bigints is not an array of one list per fact");
    for (const k of keys) {
      const v = f[k as string];
      if (typeof v !== "string") throw new Error(`field ${String(k)} of a fact is not a bigint`);
      f[k as string] = BigInt(v);
    }
    f.signature ??= signature;
    f.slot ??= slot;
    f.blockTime ??= blockTime;
    return f as Fact;
  });
}
