/**
 * A small shared response cache in front of the Data API, with the spec's TTLs:
 * each API replica answers a hot URL from memory instead of from the engines.
 */
export type ResponseCache = {
  get(key: string): unknown | undefined;
  set(key: string, value: unknown, ttlSeconds: number): void;
  readonly enabled: boolean;
};

export function createResponseCache(maxEntries = 5000, now = () => Date.now()): ResponseCache {
  const entries = new Map<string, { until: number; value: unknown }>();
  return {
    enabled: maxEntries > 0,
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.until <= now()) {
        entries.delete(key);
        return undefined;
      }
      return e.value;
    },
    set(key, value, ttlSeconds) {
      if (maxEntries <= 0) return;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { until: now() + ttlSeconds * 1000, value });
    },
  };
}
