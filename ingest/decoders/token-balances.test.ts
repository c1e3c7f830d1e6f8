import { describe, expect, test } from "bun:test";
import type { ChainTransaction } from "../transaction";
import { decodeTransaction } from "./index";
import { fixtureTx } from "./testing";

// Values read from the fixtures by hand (fixtures/helius-devnet): the coin GLZPY8…, its DBC
// base vault Ej66… (owned by the DBC pool authority), the buyer 5awo… and its token account FPmr….
const COIN = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const WSOL = "So11111111111111111111111111111111111111112";
const DBC_AUTHORITY = "FhVo3mqL8PW5pH5U2CN4XE33DokiyZnUwuGpH2hmHLuM";
const BASE_VAULT = "Ej66tJxBTbTZZ7878Mhzyhy7cMM2vvNUWNG25zUwzeTf";

const balances = (tx: ChainTransaction) => decodeTransaction(tx).facts.filter((f) => f.kind === "token_balance");

describe("token_balance facts", () => {
  test("pool creation (raw): the base vault receives the whole supply; the empty wSOL vault did not move", async () => {
    const tx = await fixtureTx("dbc-create-pool.raw.json");
    expect(balances(tx)).toEqual([
      {
        kind: "token_balance",
        signature: "5hsqkSAZ9qcF5yNkXi4P7oCU2Uw7ydVQQ9oCu6J9Gy418tzygUBxmzTPbU1k2VR3a9a1vi9pxddUwtMvy9218PFL",
        ix: 0,
        inner: -2,
        slot: 415181032,
        blockTime: 1760693966,
        mint: COIN,
        account: BASE_VAULT,
        owner: DBC_AUTHORITY,
        delta: 1_000_000_000_000_000n,
        decimals: 6,
      },
    ]);
  });

  test("a DBC buy (enhanced): SOL into the quote vault, coins from the base vault to the buyer", async () => {
    const tx = await fixtureTx("dbc-buy.enhanced.json");
    const key = { signature: "5gf6fduSgAssqxYpgRzcCHWcg7yKTdtynsYxU4x7B25YANEKZDFRvFtq22FaGaqReftbErAijndSfcNnSXiW2WZN", inner: -2, slot: 415184133, blockTime: 1760695166 };
    expect(balances(tx)).toEqual([
      { kind: "token_balance", ...key, ix: 0, mint: WSOL, account: "5d7S3z1ooAkbdQu7qx4cMM7JYYKmpae51CFkaNuMf5cA", owner: DBC_AUTHORITY, delta: 200_000_000n, decimals: 9 },
      { kind: "token_balance", ...key, ix: 1, mint: COIN, account: BASE_VAULT, owner: DBC_AUTHORITY, delta: -322_281_812_767_019n, decimals: 6 },
      { kind: "token_balance", ...key, ix: 2, mint: COIN, account: "FPmrDfUyNsNN7JtXtyvRERgVLRmys7pN1eETSx57EB4S", owner: "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf", delta: 322_281_812_767_019n, decimals: 6 },
    ]);
  });

  test("a failed transaction moves no balances", async () => {
    const tx: ChainTransaction = { ...(await fixtureTx("dbc-buy.enhanced.json")), failed: true };
    expect(balances(tx)).toEqual([]);
  });

  test("keys never collide with an instruction's: the trade keeps (6, 3) beside balances (0..2, -2)", async () => {
    const d = decodeTransaction(await fixtureTx("dbc-buy.enhanced.json"));
    expect(d.facts.map((f) => [f.kind, f.ix, f.inner])).toEqual([
      ["sol_transfer", 4, -1],
      ["trade", 6, 3],
      ["token_balance", 0, -2],
      ["token_balance", 1, -2],
      ["token_balance", 2, -2],
      ["sol_balance", 0, -3],
    ]);
  });
});
