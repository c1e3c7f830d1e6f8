/**
 * What a confirmed transaction did, read back from the chain the way ingest reads it: the
 * getTransaction result (json) through ingest's own normalizer and decoders, so the amounts
 * a buyback or a fee claim records are the ones the analytics count when the same
 * transaction comes back through the webhook.
 */
import type { ChainReader } from "../../ingest/backfill/rpc";
import { normalizeRpcTransaction } from "../../ingest/normalize";
import { decodeTransaction } from "../../ingest/decoders";
import type { ChainTransaction } from "../../ingest/transaction";
import type { DecodedTransaction, FeeClaim } from "../../ingest/contract/facts";

export type Landed = { tx: ChainTransaction; decoded: DecodedTransaction };

/** Reads a landed transaction; throws when the answer does not normalize (a node bug, not a retryable state). */
export async function readLanded(reader: Pick<ChainReader, "transaction">, signature: string): Promise<Landed> {
  const n = normalizeRpcTransaction(await reader.transaction(signature));
  if (!n.ok) throw new Error(`transaction ${signature} does not read: ${n.reason}`);
  if (n.tx.signature !== signature) throw new Error(`asked for ${signature}, the node answered ${n.tx.signature}`);
  return { tx: n.tx, decoded: decodeTransaction(n.tx) };
}

/** Atoms of `mint` the wallet `owner` gained (negative: lost) across its token accounts. */
export function tokenDelta(tx: ChainTransaction, owner: string, mint: string): bigint {
  let sum = 0n;
  for (const b of tx.tokenBalances) if (b.owner === owner && b.mint === mint) sum += b.delta;
  return sum;
}

/** The fee claims the transaction's events record (DBC partner claims, DAMM v2 position claims), in order. */
export const feeClaims = (d: DecodedTransaction): FeeClaim[] => d.facts.filter((f): f is FeeClaim => f.kind === "fee_claim");
