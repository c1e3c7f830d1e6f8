import { describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { testEngines } from "../infra/testing/engines";
import { startRpcTestDouble, type FakeAccount } from "../infra/testing/rpc-double";
import { createSolanaRpc } from "../infra/solana-rpc";
import { createLogger } from "../infra/log";
import { refreshWalletBalances, associatedTokenAddress, USDC_MINT } from "./wallets";

describe("vault balances over RPC", () => {
  test("reads SOL and USDC of stale vaults, caches them, and skips fresh ones", async () => {
    const { sql } = await testEngines();
    const withUsdc = Keypair.generate().publicKey.toBase58();
    const empty = Keypair.generate().publicKey.toBase58();
    for (const vault of [withUsdc, empty]) {
      const mint = Keypair.generate().publicKey.toBase58();
      await sql`INSERT INTO agents (mint, creator, vault) VALUES (${mint}, ${vault}, ${vault})`;
    }
    const tokenAccount = new Uint8Array(165);
    Buffer.from(tokenAccount.buffer).writeBigUInt64LE(12_500_000n, 64); // 12.5 USDC
    const accounts = new Map<string, FakeAccount>([
      [withUsdc, { lamports: 1_500_000_000, data: new Uint8Array(0) }],
      [associatedTokenAddress(withUsdc, USDC_MINT.mainnet), { lamports: 2_039_280, data: tokenAccount }],
    ]);
    const rpcDouble = startRpcTestDouble(accounts);
    try {
      const rpc = createSolanaRpc(rpcDouble.url);
      const deps = { sql, readAccounts: rpc.getAccountInfos, usdcMint: USDC_MINT.mainnet, maxAgeSeconds: 60, log: createLogger("error") };
      expect(await refreshWalletBalances(deps)).toBeGreaterThanOrEqual(2);
      const rows = await sql`SELECT address, lamports, usdc_atoms FROM wallet_balances WHERE address IN ${sql([withUsdc, empty])} ORDER BY lamports DESC`;
      expect(rows.map((r) => [r.address, String(r.lamports), String(r.usdc_atoms)])).toEqual([
        [withUsdc, "1500000000", "12500000"],
        [empty, "0", "0"],
      ]);
      const callsBefore = rpcDouble.calls.length;
      expect(await refreshWalletBalances(deps)).toBe(0); // fresh: nothing read
      expect(rpcDouble.calls.length).toBe(callsBefore);
    } finally {
      rpcDouble.stop();
    }
  });
});
