import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startRpcTestDouble } from "../infra/testing/rpc-double";
import { createSolanaRpc } from "../infra/solana-rpc";
import { FIXTURES } from "../compose/testing/platform";
import { parsePlatformConfigs } from "../infra/config";
import { loadPlatformConfigs } from "./load-configs";

const CONFIG_BYTES = new Uint8Array(readFileSync(`${FIXTURES}mainnet-accounts/dbc-pool-config.fee-in-both.bin`));
const DBC = "dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN";

describe("platform configs read over RPC", () => {
  test("decodes the real PoolConfig account and orders launch, stock, legacy", async () => {
    const rpc = startRpcTestDouble(
      new Map([
        ["CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew", { lamports: 1, data: CONFIG_BYTES, owner: DBC }],
        ["9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", { lamports: 1, data: CONFIG_BYTES, owner: DBC }],
      ]),
    );
    try {
      const entries = parsePlatformConfigs("legacy:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin,launch:CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew");
      const registry = await loadPlatformConfigs(entries, createSolanaRpc(rpc.url).getAccounts);
      expect(registry.all.map((c) => c.role)).toEqual(["launch", "legacy"]);
      expect(registry.launch!.address).toBe("CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew");
      expect(registry.launch).toMatchObject({
        feeBps: 200,
        tokenDecimals: 6,
        supplyAtoms: 1_000_000_000_000_000n,
        migrationQuoteThreshold: 100_000_000_000n,
        feeClaimer: "2VuxXtec8Gpcu49y8VZ4yYutbi98WWtRC6Zvvs8APVy1",
        quote: { kind: "sol", decimals: 9 },
      });
      expect(rpc.calls.filter((c) => c.method === "getMultipleAccounts")).toHaveLength(1);
    } finally {
      rpc.stop();
    }
  });

  test("a missing or foreign account stops start-up with the address", async () => {
    const rpc = startRpcTestDouble(new Map([["9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", { lamports: 1, data: new Uint8Array(40) }]]));
    try {
      const get = createSolanaRpc(rpc.url).getAccounts;
      await expect(loadPlatformConfigs(parsePlatformConfigs("launch:CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew"), get)).rejects.toThrow(
        /CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew does not exist/,
      );
      await expect(loadPlatformConfigs(parsePlatformConfigs("launch:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"), get)).rejects.toThrow(/not a DBC PoolConfig/);
    } finally {
      rpc.stop();
    }
  });
});
