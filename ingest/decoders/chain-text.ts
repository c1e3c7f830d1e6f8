/**
 * Text read from the chain (a coin's name, symbol and metadata URI) is whatever its
 * creator wrote, and may hold U+0000. Postgres `text` and `jsonb` cannot store that
 * character, so one such string failed every write it travelled in. It carries no
 * meaning a reader could see, so it is removed where the decoders hand facts out:
 * every string of every fact passes here, whatever decoder produced it.
 */
export function withoutNul<T extends object>(fact: T): T {
  const fields = fact as Record<string, unknown>;
  for (const k in fields) {
    const v = fields[k];
    if (typeof v === "string" && v.includes("\0")) fields[k] = v.replaceAll("\0", "");
  }
  return fact;
}
