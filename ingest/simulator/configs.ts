/**
 * Simulated configs from the real mainnet DBC PoolConfig kept in ./fixtures (published by
 * MeteoraAg/dynamic-bonding-curve as fee_in_both_config.bin). That config is SOL-quoted,
 * so the "stock" config here is SOL-quoted too: a real stock-paired config would carry a
 * tokenized stock's mint as quote_mint.
 */
import { BorshAccountsCoder } from "@coral-xyz/anchor";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DBC_IDL } from "./encode";
import { Rng, deriveSeed } from "./random";
import type { SimConfig } from "./world";

export const FIXTURE_POOL_CONFIG_PATH = fileURLToPath(new URL("./fixtures/dbc-pool-config.fee-in-both.bin", import.meta.url));

/** The fixture PoolConfig as Anchor decodes it with the SDK IDL (snake_case fields, BN amounts). */
export function decodeFixturePoolConfig(path = FIXTURE_POOL_CONFIG_PATH): Record<string, unknown> {
  const coder = new BorshAccountsCoder(DBC_IDL);
  return coder.decode("PoolConfig", readFileSync(path));
}

export type FixtureConfigOptions = {
  path?: string;
  /**
   * Override creator_trading_fee_percentage (the fixture has 0, so creators earn no
   * trading fee and their claims are of zero).
   */
  creatorTradingFeePercentage?: number;
};

/** One launch, one stock and one legacy config at deterministic addresses, all on the fixture PoolConfig. */
export function fixtureSimConfigs(seed: number, o: FixtureConfigOptions = {}): SimConfig[] {
  const r = new Rng(deriveSeed(seed, 7));
  return (["launch", "stock", "legacy"] as const).map((role) => {
    const poolConfig = decodeFixturePoolConfig(o.path);
    if (o.creatorTradingFeePercentage !== undefined) poolConfig.creator_trading_fee_percentage = o.creatorTradingFeePercentage;
    return { address: r.address(), role, poolConfig };
  });
}
