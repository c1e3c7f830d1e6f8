import { expect, test } from "bun:test";
import { testEngines } from "../testing/engines";
import { stringListLiteral } from "./client";

test("a list literal keeps every character (quotes, backslashes, empty strings)", async () => {
  const engines = await testEngines();
  const values = ["GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx", "it's", "back\\slash\\'", "\\", ""];
  const rows = await engines.ch.query<{ v: string }>(`SELECT arrayJoin(${stringListLiteral(values)}) AS v`);
  expect(rows.map((r) => r.v)).toEqual(values);
  expect(await engines.ch.query(`SELECT 1 AS one WHERE 'x' IN ${stringListLiteral(["x'); DROP TABLE trades; --"])}`)).toEqual([]);
});
