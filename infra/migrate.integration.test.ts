import { expect, test } from "bun:test";
import { testEngines } from "./testing/engines";
import { migrateClickhouse } from "./migrate";
import { LOCKS } from "./advisory-lock";
import { createLogger } from "./log";

test("ClickHouse migrations wait while another process migrates (Postgres advisory lock)", async () => {
  const { ch, sql } = await testEngines();
  const other = await sql.reserve(); // another process, mid-migration
  await other`SELECT pg_advisory_lock(${LOCKS.clickhouseMigrations})`;
  let finished = false;
  const run = migrateClickhouse(ch, createLogger("error"), sql).then((applied) => {
    finished = true;
    return applied;
  });
  await Bun.sleep(300);
  expect(finished).toBe(false);
  await other`SELECT pg_advisory_unlock(${LOCKS.clickhouseMigrations})`;
  other.release();
  expect(await run).toEqual([]); // everything was applied already; it only had to wait its turn
});
