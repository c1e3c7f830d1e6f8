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
 * One JSON text per envelope; bigints as `{"$bigint": "…"}`. A fact's signature, slot and block
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

/** Parses a message value back into an envelope (either form: facts with or without their transaction's fields); throws with a reason on anything malformed. */
export function decodeEnvelope(value: Buffer | null): TxEnvelope {
  if (!value) throw new Error("empty message value");
  const raw = JSON.parse(value.toString("utf8")) as Record<string, unknown>;
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
  if (!["decoded", "partial", "failed", "undecodable"].includes(status)) throw new Error(`unknown status ${status}`);
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
    facts: raw.facts.map((f: unknown) => factOf(f, signature, slot, blockTime)),
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
