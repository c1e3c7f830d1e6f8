/**
 * Decoding with a fact scope (contract/fact-scope.ts) on real transactions: only the balance
 * and SOL facts the pipelines can use are kept, each with the key it has without the scope.
 */
import { describe, expect, test } from "bun:test";
import type { Fact, Trade } from "../contract/facts";
import type { FactScope } from "../contract/fact-scope";
import { WSOL_MINT } from "../contract/configs";
import { decodeTransaction } from "./index";
import { fixtureTx } from "./testing";

// from fixtures/helius-devnet/dbc-buy.enhanced.json (see token-balances.test.ts): the coin, the buyer and its coin account
const COIN = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const BUYER = "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf";
const BUYER_COIN_ACCOUNT = "FPmrDfUyNsNN7JtXtyvRERgVLRmys7pN1eETSx57EB4S";

const tx = await fixtureTx("dbc-buy.enhanced.json");
const config = (decodeTransaction(tx).facts.find((f) => f.kind === "trade") as Trade).config;
const scope = (over: Partial<FactScope>): FactScope => ({
  treasury: new Set(), platformTokenMint: null, platformConfigs: new Set(), coins: new Set(), quoteMints: new Set([WSOL_MINT]), ...over,
});
/** kind, key and who of each fact */
const shape = (facts: Fact[]) =>
  facts.map((f) => [f.kind, f.ix, f.inner, f.kind === "token_balance" ? f.account : f.kind === "sol_transfer" ? f.from : f.kind === "sol_balance" ? f.account : ""]);

describe("decoding with a fact scope", () => {
  test("without a scope: every balance (wSOL, both vaults, the buyer's coins), the SOL transfer and the fee payer's SOL", () => {
    expect(decodeTransaction(tx).facts.map((f) => f.kind)).toEqual(["sol_transfer", "trade", "token_balance", "token_balance", "token_balance", "sol_balance"]);
  });

  test("a buy on a platform config: the trade and the buyer's coin balance, at its unscoped key, before the coin is known", () => {
    const facts = decodeTransaction(tx, scope({ platformConfigs: new Set([config]) })).facts;
    expect(shape(facts)).toEqual([
      ["trade", 6, 3, ""],
      ["token_balance", 2, -2, BUYER_COIN_ACCOUNT],
    ]);
    expect(facts[1]).toEqual(decodeTransaction(tx).facts[4]!);
  });

  test("a coin the scope knows, or the platform token, keeps its holders' balances; the pools' vaults never", () => {
    for (const s of [scope({ coins: new Set([COIN]) }), scope({ platformTokenMint: COIN }), scope({ coins: null })])
      expect(shape(decodeTransaction(tx, s).facts)).toEqual([
        ["trade", 6, 3, ""],
        ["token_balance", 2, -2, BUYER_COIN_ACCOUNT],
      ]);
  });

  test("another launchpad's coin: the trade only (the pipelines drop it), no balance", () => {
    expect(shape(decodeTransaction(tx, scope({})).facts)).toEqual([["trade", 6, 3, ""]]);
  });

  test("the treasury's own: its SOL transfer out, its SOL as fee payer, its token accounts of any mint", () => {
    // as if the buyer were the treasury and the wSOL account its own (a buyback wraps SOL)
    const wsolAccount = tx.tokenBalances.find((b) => b.mint === WSOL_MINT)!.account;
    const own = { ...tx, tokenBalances: tx.tokenBalances.map((b) => (b.mint === WSOL_MINT ? { ...b, owner: BUYER } : b)) };
    const facts = decodeTransaction(own, scope({ treasury: new Set([BUYER]) })).facts;
    expect(shape(facts)).toEqual([
      ["sol_transfer", 4, -1, BUYER],
      ["trade", 6, 3, ""],
      ["token_balance", 0, -2, wsolAccount],
      ["token_balance", 2, -2, BUYER_COIN_ACCOUNT],
      ["sol_balance", 0, -3, BUYER],
    ]);
  });
});
