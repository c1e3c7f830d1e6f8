/**
 * A small shared response cache in front of the Data API, with the spec's TTLs:
 * each API replica answers a hot URL from memory instead of from the engines.
 *
 * Keys are the parsed request (see index.ts), never the raw query string, so junk
 * parameters cannot mint new entries. When full, the least recently used entry goes:
 * a hot page is read again and again, so a stream of one-off keys evicts cold ones first.
 */
export type ResponseCache = {
  get(key: string): unknown | undefined;
  set(key: string, value: unknown, ttlSeconds: number): void;
  readonly enabled: boolean;
  readonly size: number;
};

export function createResponseCache(maxEntries = 5000, now = () => Date.now()): ResponseCache {
  const entries = new Map<string, { until: number; value: unknown }>();
  return {
    enabled: maxEntries > 0,
    get size() {
      return entries.size;
    },
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      entries.delete(key);
      if (e.until <= now()) return undefined;
      entries.set(key, e); // most recently used now
      return e.value;
    },
    set(key, value, ttlSeconds) {
      if (maxEntries <= 0) return;
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { until: now() + ttlSeconds * 1000, value });
    },
  };
}
