import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FIXTURES_DIR } from "../infra/testing/fixtures";
import { associatedTokenAddress, USDC_MINT } from "./wallets";

describe("associated token address", () => {
  test("is the USDC account a wallet really has on mainnet", () => {
    // Published owner/mint/account triple: metaplex-foundation/Solana.Swift,
    // Tests/SolanaTests/AssociatedTokenProgramTests.swift (testFindAssociatedTokenAddress).
    expect(associatedTokenAddress("3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG", USDC_MINT.mainnet)).toBe("3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3");
  });

  test("is the token account the buyer used in a real transaction", () => {
    // fixtures/helius-devnet/dbc-buy.enhanced.json: the chain's tokenBalanceChanges name
    // the owner (userAccount), the mint and the token account that received the coins.
    const tx = JSON.parse(readFileSync(`${FIXTURES_DIR}helius-devnet/dbc-buy.enhanced.json`, "utf8"));
    const changes = tx.accountData.flatMap((a: any) => a.tokenBalanceChanges);
    const received = changes.find((c: any) => c.userAccount === "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf" && c.mint === "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx");
    expect(received.tokenAccount).toBe("FPmrDfUyNsNN7JtXtyvRERgVLRmys7pN1eETSx57EB4S");
    expect(associatedTokenAddress(received.userAccount, received.mint)).toBe(received.tokenAccount);
  });
});
