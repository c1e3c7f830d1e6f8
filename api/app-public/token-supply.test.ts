import { describe, expect, test } from "bun:test";
import { cachedTokenSupply, TOKEN_SUPPLY_SECONDS } from "./token-supply";

describe("the platform token's supply over RPC", () => {
  test("kept 60 s per mint, shared while in flight, a failure not kept", async () => {
    let clock = 1_000_000;
    const reads: string[] = [];
    let fail = false;
    let supply = 10n;
    const read = cachedTokenSupply(async (mint) => {
      reads.push(mint);
      if (fail) throw new Error("rpc down");
      return supply;
    }, () => clock);
    expect(await Promise.all([read("A"), read("A")])).toEqual([10n, 10n]);
    expect(reads).toEqual(["A"]);
    supply = 11n;
    clock += TOKEN_SUPPLY_SECONDS * 1000 - 1;
    expect(await read("A")).toBe(10n);
    expect(await read("B")).toBe(11n);
    clock += 1;
    fail = true;
    expect(await read("A")).toBeNull();
    fail = false;
    expect(await read("A")).toBe(11n);
    expect(reads).toEqual(["A", "B", "A", "A"]);
  });
});
