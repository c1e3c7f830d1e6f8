import { expect, test } from "bun:test";
import { testEngines } from "../../infra/testing/engines";
import { hiddenMints } from "./feed-service";

// Every read across coins first asks Postgres for the hidden coins (hiddenMints); Postgres
// migration 0018's partial index answers it without a scan of every agent.
test("the hidden coins are read from the partial index agents_hidden", async () => {
  const { sql } = await testEngines();
  const plan = await sql.begin(async (tx) => {
    // the planner takes a scan of a small table when it can: forbid it to see that the index serves the read
    await tx`SET LOCAL enable_seqscan = off`;
    return (await tx.unsafe(`EXPLAIN SELECT mint FROM agents WHERE hidden`)).map((r) => String(r["QUERY PLAN"])).join("\n");
  });
  expect(plan).toContain("agents_hidden");
  const [index] = await sql<{ def: string }[]>`SELECT indexdef AS def FROM pg_indexes WHERE indexname = 'agents_hidden'`;
  expect(index!.def).toContain("WHERE hidden");
  // what it returns is every hidden coin and no other
  const listed = new Set(await hiddenMints({ sql }));
  const hidden = await sql<{ mint: string }[]>`SELECT mint FROM agents WHERE hidden IS TRUE`;
  expect([...listed].sort()).toEqual(hidden.map((r) => r.mint).sort());
});
