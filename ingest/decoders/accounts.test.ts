import { expect, test } from "bun:test";
import { decodePoolConfig, decodeVirtualPool } from "./accounts";
import { DBC } from "./program-coder";
import { FIXTURES_URL } from "../../infra/testing/fixtures";

const DIR = new URL("mainnet-accounts/", FIXTURES_URL);
const bytes = async (name: string) => new Uint8Array(await Bun.file(new URL(name, DIR)).arrayBuffer());
const s = (v: { toString(): string }) => v.toString();

test("PoolConfig (fee in both tokens)", async () => {
  const data = await bytes("dbc-pool-config.fee-in-both.bin");
  expect(data.length).toBe(1048);
  expect(DBC.coder.accounts.size("PoolConfig")).toBe(1048);
  const c = decodePoolConfig(data);
  expect(c.quote_mint.toBase58()).toBe("So11111111111111111111111111111111111111112");
  expect(c.fee_claimer.toBase58()).toBe("2VuxXtec8Gpcu49y8VZ4yYutbi98WWtRC6Zvvs8APVy1");
  expect(c.leftover_receiver.toBase58()).toBe("2VuxXtec8Gpcu49y8VZ4yYutbi98WWtRC6Zvvs8APVy1");
  expect(s(c.pool_fees.base_fee.cliff_fee_numerator)).toBe("20000000");
  expect(c.pool_fees.base_fee.base_fee_mode).toBe(0);
  expect(c.pool_fees.dynamic_fee.initialized).toBe(0);
  expect(c.collect_fee_mode).toBe(1);
  expect(c.migration_option).toBe(1);
  expect(c.activation_type).toBe(1);
  expect(c.token_decimal).toBe(6);
  expect(c.version).toBe(0);
  expect(c.token_type).toBe(0);
  expect(c.quote_token_flag).toBe(0);
  expect(c.partner_permanent_locked_liquidity_percentage).toBe(100);
  expect(c.partner_liquidity_percentage).toBe(0);
  expect(c.creator_permanent_locked_liquidity_percentage).toBe(0);
  expect(c.creator_liquidity_percentage).toBe(0);
  expect(c.migration_fee_option).toBe(3);
  expect(c.fixed_token_supply_flag).toBe(1);
  expect(c.creator_trading_fee_percentage).toBe(0);
  expect(s(c.swap_base_amount)).toBe("799999989592506");
  expect(s(c.migration_quote_threshold)).toBe("100000000000");
  expect(s(c.migration_base_threshold)).toBe("200000002081499");
  expect(s(c.migration_sqrt_price)).toBe("412481737123559485");
  expect(s(c.pre_migration_token_supply)).toBe("1000000000000000");
  expect(s(c.post_migration_token_supply)).toBe("1000000000000000");
  expect(s(c.sqrt_start_price)).toBe("103120435622421629");
  expect(c.curve.length).toBe(20);
  expect(c.curve.slice(0, 3).map((p: any) => [s(p.sqrt_price), s(p.liquidity)])).toEqual([
    ["412481737123559485", "109995130376604934626148314671099"],
    ["79226673521066979257578248091", "3434320880899950928465656"],
    ["0", "0"],
  ]);
});

test("VirtualPool using that config", async () => {
  const data = await bytes("dbc-virtual-pool.fee-in-both.bin");
  expect(data.length).toBe(424);
  expect(DBC.coder.accounts.size("VirtualPool")).toBe(424);
  // the IDL wraps the bytemuck struct in a single field
  const p = decodeVirtualPool(data).pool_state;
  expect(p.config.toBase58()).toBe("CbfpuGYivK1o8rCpKf536ebipFipRTyk71sGCCXaBeEc");
  expect(p.creator.toBase58()).toBe("29zm7bwWhveMx5q3aZuyZBhDPfJfWE5RxYEk8q4ydVjz");
  expect(p.base_mint.toBase58()).toBe("QS4QLW6vZWMmQE3j3LAnGfCZbXWbVfDuVDeVfgT2dzM");
  expect(p.base_vault.toBase58()).toBe("EJbyuuy3n3bsuCcYMDFpZusYPygH37czkXTtz4fsUnyS");
  expect(p.quote_vault.toBase58()).toBe("9ahwHkK8L3otSSMpz2q2rNhbhRPiqaGGJqFiKyF3eN4X");
  expect(s(p.base_reserve)).toBe("722427194010288");
  expect(s(p.quote_reserve)).toBe("11725382491");
  expect(s(p.protocol_base_fee)).toBe("11533551915842");
  expect(s(p.protocol_quote_fee)).toBe("1367436862");
  expect(s(p.partner_base_fee)).toBe("46134207664366");
  expect(s(p.partner_quote_fee)).toBe("6506421206");
  expect(s(p.sqrt_price)).toBe("139394230708914577");
  expect(s(p.activation_point)).toBe("1752686876");
  expect(p.pool_type).toBe(0);
  expect(p.is_migrated).toBe(0);
  expect(p.migration_progress).toBe(0);
  expect(s(p.finish_curve_timestamp)).toBe("0");
  expect(s(p.metrics.total_trading_quote_fee)).toBe("6506421206");
});

test("wrong account type or short data throws", async () => {
  const config = await bytes("dbc-pool-config.fee-in-both.bin");
  expect(() => decodeVirtualPool(config)).toThrow();
  expect(() => decodePoolConfig(config.subarray(0, 100))).toThrow();
});
