/**
 * The SOL/USD price: sources tried in order, the answer cached for 3 seconds.
 * `current()` is null while no source answers (the API says 503).
 */
import type { Logger } from "../log";
import type { PriceSource, SolPrice } from "./sources";

export type { SolPrice, PriceSource } from "./sources";
export { oracleSource, aggregatorSource, exchangeSource } from "./sources";
export { simulatedSource } from "./simulated";

export type SolPriceService = {
  current(): Promise<SolPrice | null>;
  /** the last price any source gave (for USD fields when sources are briefly down) */
  lastKnown(): SolPrice | null;
};

export function createSolPriceService(sources: PriceSource[], log: Logger, ttlMs = 3000, now = () => Date.now()): SolPriceService {
  let cached: { at: number; price: SolPrice | null } | null = null;
  let last: SolPrice | null = null;
  let inflight: Promise<SolPrice | null> | null = null;

  async function readAll(): Promise<SolPrice | null> {
    for (const source of sources) {
      try {
        return await source.read();
      } catch (err) {
        log.warn("sol price source failed", { source: source.name, err: (err as Error).message });
      }
    }
    return null;
  }

  return {
    async current() {
      if (cached && now() - cached.at < ttlMs) return cached.price;
      inflight ??= readAll().finally(() => (inflight = null));
      const price = await inflight;
      cached = { at: now(), price };
      if (price) last = price;
      return price;
    },
    lastKnown: () => last,
  };
}

