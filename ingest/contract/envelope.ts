/**
 * What travels on the bus from ingest to the pipelines: one chain transaction as
 * ingest understood it. The raw payload rides along only when something in it
 * was not understood, so it is kept for replay.
 */
import type { DecodedTransaction, Fact } from "./facts";

export type TxStatus = "decoded" | "partial" | "failed" | "undecodable";

export type TxEnvelope = {
  source: "helius" | "backfill" | "reconcile" | "simulator";
  receivedAt: number;
  signature: string;
  slot: number;
  blockTime: number;
  status: TxStatus;
  facts: Fact[];
  unknownCount: number;
  errorCount: number;
  detail: string;
  payload: string;
};

export function envelopeFromDecoded(
  source: TxEnvelope["source"],
  receivedAt: number,
  decoded: DecodedTransaction,
  raw: () => string,
): TxEnvelope {
  const { tx } = decoded;
  const imperfect = decoded.unknown.length > 0 || decoded.errors.length > 0;
  const detail = [
    ...decoded.unknown.map((u) => `unknown ${u.program} discriminator ${u.discriminator} at ${u.ix}:${u.inner}`),
    ...decoded.errors.map((e) => `error at ${e.ix}:${e.inner}: ${e.message}`),
  ].join("; ");
  return {
    source,
    receivedAt,
    signature: tx.signature,
    slot: tx.slot,
    blockTime: tx.blockTime,
    status: tx.failed ? "failed" : imperfect ? "partial" : "decoded",
    facts: tx.failed ? [] : decoded.facts,
    unknownCount: decoded.unknown.length,
    errorCount: decoded.errors.length,
    detail,
    payload: imperfect ? raw() : "",
  };
}

export function envelopeUndecodable(source: TxEnvelope["source"], receivedAt: number, payload: string, reason: string, signature: string): TxEnvelope {
  return { source, receivedAt, signature, slot: 0, blockTime: 0, status: "undecodable", facts: [], unknownCount: 0, errorCount: 1, detail: reason, payload };
}

/** The mints whose token balances these transactions moved (every token: the reader picks its coins). */
export function movedMints(envelopes: readonly TxEnvelope[]): string[] {
  const mints = new Set<string>();
  for (const e of envelopes) for (const f of e.facts) if (f.kind === "token_balance") mints.add(f.mint);
  return [...mints];
}
