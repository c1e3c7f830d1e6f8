/**
 * Kafka topics, named in one place. One message per chain transaction (its
 * envelope), keyed by the coin it concerns so one coin's events stay in order on
 * one partition. Each topic has a dead-letter twin `<topic>.dlq`. The name can be
 * changed with KAFKA_TOPIC (tests give each run its own).
 */
import type { TxEnvelope } from "../../ingest/contract/envelope";
import { factFromJson, factToJson } from "../classify";

export const TOPICS = { transactions: "chain.transactions" } as const;
export const dlqTopic = (topic: string) => `${topic}.dlq`;

/** The mint a transaction is about (first fact's), else its signature: the partition key. */
export function partitionKey(env: TxEnvelope): string {
  for (const f of env.facts) if ("mint" in f && f.mint) return f.mint;
  return env.signature;
}

export function encodeEnvelope(env: TxEnvelope): string {
  return JSON.stringify({ ...env, facts: env.facts.map(factToJson) });
}

/** Parses a message value back into an envelope; throws with a reason on anything malformed. */
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
  return {
    source: str("source") as TxEnvelope["source"],
    receivedAt: num("receivedAt"),
    signature: str("signature"),
    slot: num("slot"),
    blockTime: num("blockTime"),
    status: status as TxEnvelope["status"],
    facts: raw.facts.map(factFromJson),
    unknownCount: num("unknownCount"),
    errorCount: num("errorCount"),
    detail: str("detail"),
    payload: str("payload"),
  };
}
