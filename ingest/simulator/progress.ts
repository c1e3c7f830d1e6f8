/**
 * Where the demo simulator got to, kept in DATA_DIR so a restart continues the
 * same chain instead of replaying its start (which would only be deduplicated).
 */
import { existsSync, readFileSync, writeFileSync, renameSync } from "node:fs";

export function readProgress(file: string, seed: number): number {
  if (!existsSync(file)) return 0;
  try {
    const saved = JSON.parse(readFileSync(file, "utf8")) as { seed?: unknown; posted?: unknown };
    return saved.seed === seed && Number.isSafeInteger(saved.posted) && (saved.posted as number) > 0 ? (saved.posted as number) : 0;
  } catch {
    return 0;
  }
}

export function writeProgress(file: string, seed: number, posted: number): void {
  writeFileSync(file + ".tmp", JSON.stringify({ seed, posted }));
  renameSync(file + ".tmp", file);
}
