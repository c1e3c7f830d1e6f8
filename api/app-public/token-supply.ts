/**
 * The platform token's supply over RPC (`getTokenSupply`), kept 60 s per mint so the
 * tokenomics answer (cached 30 s itself) never waits on the chain more than once a
 * minute; readers of a mint whose read is in flight share it. A failed read is not
 * kept: the answer says null and the next request tries again.
 */
export const TOKEN_SUPPLY_SECONDS = 60;

export function cachedTokenSupply(read: (mint: string) => Promise<bigint>, now = () => Date.now()) {
  const kept = new Map<string, { at: number; value: Promise<bigint | null> }>();
  return (mint: string): Promise<bigint | null> => {
    const hit = kept.get(mint);
    if (hit && now() - hit.at < TOKEN_SUPPLY_SECONDS * 1000) return hit.value;
    const value = read(mint).catch(() => {
      kept.delete(mint);
      return null;
    });
    kept.set(mint, { at: now(), value });
    return value;
  };
}
