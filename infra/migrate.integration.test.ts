import { expect, test } from "bun:test";
import { testEngines } from "./testing/engines";
import { migrateClickhouse } from "./migrate";
import { LOCKS } from "./advisory-lock";
import { createLogger } from "./log";
import { until } from "./testing/wait";

test("ClickHouse migrations wait while another process migrates (Postgres advisory lock)", async () => {
  const { ch, sql } = await testEngines();
  const other = await sql.reserve(); // another process, mid-migration
  await other`SELECT pg_advisory_lock(${LOCKS.clickhouseMigrations})`;
  let finished = false;
  const run = migrateClickhouse(ch, createLogger("error"), sql).then((applied) => {
    finished = true;
    return applied;
  });
  // it is blocked on the lock (Postgres shows its request waiting), not finished
  await until("the migration to wait on the advisory lock", async () => {
    const [row] = await sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
    return row!.n > 0 ? true : undefined;
  });
  expect(finished).toBe(false);
  await other`SELECT pg_advisory_unlock(${LOCKS.clickhouseMigrations})`;
  other.release();
  expect(await run).toEqual([]); // everything was applied already; it only had to wait its turn
});
