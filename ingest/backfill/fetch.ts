/**
 * Signatures → transactions over RPC → the webhook's decode path → the bus. Shared
 * by backfill and reconciliation so that RPC data is understood exactly like
 * webhook data (`toEnvelopes`), only the source label differs.
 */
import { toEnvelopes } from "../helius/handle";
import type { Bus } from "../contract/bus";
import type { TxEnvelope } from "../contract/envelope";
import type { ChainReader } from "./rpc";

/** Runs at most `n` functions at a time, across every caller that shares it. */
export type Limiter = <T>(fn: () => Promise<T>) => Promise<T>;

export function createLimiter(n: number): Limiter {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Publishes in slices: the Kafka bus acknowledges a send within a deadline, so a send stays small. */
const PUBLISH_SLICE = 500;

/** Fetches the transactions of `signatures` (in parallel, bounded by `limit`) and decodes them as the webhook does. */
export async function fetchEnvelopes(
  deps: { reader: ChainReader; limit: Limiter },
  signatures: string[],
  source: TxEnvelope["source"],
): Promise<TxEnvelope[]> {
  if (signatures.length === 0) return [];
  const raws = await Promise.all(signatures.map((s) => deps.limit(() => deps.reader.transaction(s))));
  return toEnvelopes(raws, source);
}

/** Resolves once the bus has every envelope (stored, or acknowledged by Kafka). */
export async function publishEnvelopes(bus: Bus, envelopes: TxEnvelope[]): Promise<void> {
  const slices: TxEnvelope[][] = [];
  for (let i = 0; i < envelopes.length; i += PUBLISH_SLICE) slices.push(envelopes.slice(i, i + PUBLISH_SLICE));
  await Promise.all(slices.map((s) => bus.publish(s)));
}
