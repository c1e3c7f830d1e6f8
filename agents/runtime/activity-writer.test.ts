import { expect, test } from "bun:test";
import type { ClickHouse } from "../../infra/clickhouse";
import { batchedActivityWriter } from "./activity-writer";

const row = (id: string) => ({ mint: "m", at: 1, id, kind: "post", text: id, body: id, data: "{}", links: "{}" });

test("rows handed over together go in one insert; a failed insert fails each of its writers", async () => {
  const inserts: string[][] = [];
  let fail = false;
  const ch = { insert: async (table: string, rows: { id: string }[]) => {
    expect(table).toBe("activity");
    inserts.push(rows.map((r) => r.id));
    if (fail) throw new Error("ClickHouse down");
  } } as unknown as ClickHouse;
  const w = batchedActivityWriter(ch, { maxRows: 3, maxWaitMs: 5 });
  await Promise.all([w.write(row("a")), w.write(row("b"))]);
  await Promise.all([w.write(row("c")), w.write(row("d")), w.write(row("e")), w.write(row("f"))]);
  expect(inserts).toEqual([["a", "b"], ["c", "d", "e"], ["f"]]);
  fail = true;
  const results = await Promise.allSettled([w.write(row("g")), w.write(row("h"))]);
  expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
});
