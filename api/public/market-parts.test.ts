import { expect, test } from "bun:test";
import { partChanges } from "./market-sql";

const part = (name: string, dataVersion?: number) => {
  const [partition_id, min, max] = name.split("_");
  return { table: "market_state", name, partition_id: partition_id!, min_block: min!, max_block: max!, data_version: String(dataVersion ?? Number(min)) };
};

test("a table's parts tell whether its rows may have changed, and whether rows may have left it", () => {
  const before = [part("all_1_5_1"), part("all_6_6_0")];
  expect(partChanges(undefined, before)).toEqual({ same: false, whole: true });
  expect(partChanges(before, [part("all_6_6_0"), part("all_1_5_1")])).toEqual({ same: true });
  // an insert, then a merge of what was there with it: rows added only
  expect(partChanges(before, [...before, part("all_7_7_0")])).toEqual({ same: false, whole: false });
  expect(partChanges(before, [part("all_1_7_2")])).toEqual({ same: false, whole: false });
  // a mutation (a delete or an update) rewrites parts under a new data version; a truncation leaves parts no part covers
  expect(partChanges(before, [part("all_1_5_1_8", 8), part("all_6_6_0_8", 8)])).toEqual({ same: false, whole: true });
  expect(partChanges(before, [])).toEqual({ same: false, whole: true });
  expect(partChanges(before, [part("all_9_9_0")])).toEqual({ same: false, whole: true });
  // another partition's parts do not cover these
  expect(partChanges(before, [part("x_1_7_2"), part("all_6_6_0")])).toEqual({ same: false, whole: true });
});
