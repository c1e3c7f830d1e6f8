/**
 * A migration file after a crash at every point: for each cut (0..all statements), the store
 * is put back (`reset`, skipped before the first cut, which starts from the store as given),
 * the file's statements up to the cut run (then the crash), then the whole file again from
 * its first statement (what infra/migrate.ts does after a crash), then `check`. A failing
 * check names the cut.
 */
import type { ClickHouse } from "../clickhouse";

export async function crashAtEveryStatement(
  ch: ClickHouse,
  all: readonly string[],
  reset: () => Promise<void>,
  check: () => Promise<void>,
): Promise<void> {
  for (let cut = 0; cut <= all.length; cut++) {
    if (cut > 0) await reset();
    for (const s of all.slice(0, cut)) await ch.command(s);
    for (const s of all) await ch.command(s);
    try {
      await check();
    } catch (err) {
      throw new Error(`crash after statement ${cut} of ${all.length}: ${(err as Error).message}`);
    }
  }
}
