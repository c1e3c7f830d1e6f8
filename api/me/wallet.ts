/**
 * A signed-in wallet's SOL balance over RPC, kept `ttlMs` (5 s) per address: a page that
 * polls it, or several tabs, cost one RPC read per address per 5 s. Readers of an address
 * whose read is in flight share it (single-flight); a failed read is never kept.
 */
export type BalanceRead = (address: string) => Promise<bigint>;
export type BalanceReader = { get(address: string): Promise<{ lamports: bigint; readAtMs: number }> };

export function createBalanceReader(opts: { read: BalanceRead; now?: () => number; ttlMs?: number; maxEntries?: number }): BalanceReader {
  const now = opts.now ?? Date.now;
  const ttlMs = opts.ttlMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const kept = new Map<string, { lamports: bigint; readAtMs: number }>();
  const inFlight = new Map<string, Promise<{ lamports: bigint; readAtMs: number }>>();
  return {
    async get(address) {
      const hit = kept.get(address);
      if (hit && now() - hit.readAtMs < ttlMs) return hit;
      const running = inFlight.get(address);
      if (running) return running;
      const read = opts
        .read(address)
        .then((lamports) => {
          const value = { lamports, readAtMs: now() };
          kept.delete(address);
          if (kept.size >= maxEntries) kept.delete(kept.keys().next().value!);
          kept.set(address, value);
          return value;
        })
        .finally(() => inFlight.delete(address));
      inFlight.set(address, read);
      return read;
    },
  };
}
