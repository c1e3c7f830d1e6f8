/**
 * chDB inserts: rows of one shape go as JSONCompactEachRow (arrays of values, their
 * columns named), rows of mixed shapes as JSONEachRow. Both store the same values.
 */
import { expect, test } from "bun:test";
import { testEngines } from "../testing/engines";
import { toJsonCompactEachRow } from "./client";

const U64_MAX = 18446744073709551615n;
const U128_BIG = 2n ** 127n + 3n;

function trade(mint: string, i: number) {
  return {
    mint, slot: 1000n + BigInt(i), signature: `sig-"quoted"\\-${i}\n`, ix: i, inner: -1, at: 1_700_000_000 + i,
    venue: "curve", pool: "pool", config: "cfg", quote_mint: "So11111111111111111111111111111111111111112", side: "buy", trader: "trader",
    amount_quote: U64_MAX, amount_base: 5_000n, sqrt_price: U128_BIG, quote_reserve: 1n, migration_threshold: 2n,
    trading_fee: 7n, protocol_fee: 0n, referral_fee: 0n, base_decimals: 6, price_sol: 0.125, fee_in_base: 1,
  };
}

test("the compact form: one shape only, bigint as quoted decimal", () => {
  expect(toJsonCompactEachRow([{ a: 1, b: 2n ** 70n, c: "x" }, { a: 2, b: 1n, c: "y\n" }])).toEqual({
    columns: ["a", "b", "c"],
    text: '[1,"1180591620717411303424","x"]\n[2,"1","y\\n"]\n',
  });
  expect(toJsonCompactEachRow([{ a: 1, b: 2 }, { b: 2, a: 1 }])).toBeNull(); // another order
  expect(toJsonCompactEachRow([{ a: 1, b: 2 }, { a: 1 }])).toBeNull(); // a key missing
  expect(toJsonCompactEachRow([{ a: 1 }, { a: 1, b: 2 }])).toBeNull(); // a key more
  expect(toJsonCompactEachRow([{ a: 1, b: undefined }])).toBeNull(); // left to the column's default
  expect(toJsonCompactEachRow([])).toBeNull();
});

test("rows of one shape and of mixed shapes store the same values", async () => {
  const { ch } = await testEngines();
  const mint = `fmt-${Math.random().toString(36).slice(2, 8)}`;
  const same = [trade(mint, 1), trade(mint, 2)];
  // the second row without `fee_in_base` (its default, 0): the insert goes as JSONEachRow
  const { fee_in_base: _, ...short } = trade(mint, 4);
  const mixed = [trade(mint, 3), short];
  await ch.insert("trades", same);
  await ch.insert("trades", mixed);
  const rows = await ch.query<Record<string, unknown>>(
    "SELECT signature, ix, slot, toUnixTimestamp(at) AS at, amount_quote, sqrt_price, price_sol, fee_in_base FROM trades WHERE mint = {mint:String} ORDER BY ix",
    { mint },
  );
  expect(rows).toEqual(
    [1, 2, 3, 4].map((i) => ({
      signature: `sig-"quoted"\\-${i}\n`, ix: i, slot: String(1000 + i), at: 1_700_000_000 + i, amount_quote: U64_MAX.toString(),
      sqrt_price: U128_BIG.toString(), price_sol: 0.125, fee_in_base: i === 4 ? 0 : 1,
    })),
  );
});
