/**
 * What ingest hands the pipelines, and the one question it asks them back. The
 * in-process bus and the Kafka bus (pipelines/) implement `Bus`; the pipelines'
 * gate answers `StoredSignatures`. Ingest sees only these types, so it never
 * imports the pipelines: the composition root passes the implementations in.
 */
import type { TxEnvelope } from "./envelope";

export interface Bus {
  publish(batch: TxEnvelope[]): Promise<void>;
  close(): Promise<void>;
}

export type SignatureAt = { signature: string; slot: number };

/** Of these signatures, those the pipelines have stored completely: ingest need not send them again. */
export type StoredSignatures = (items: readonly SignatureAt[]) => Promise<Set<string>>;
