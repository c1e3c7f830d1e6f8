import { describe, expect, test } from "bun:test";
import { BorshAccountsCoder, BorshCoder, type Idl } from "@coral-xyz/anchor";
import { convertIdlToCamelCase } from "@coral-xyz/anchor/dist/cjs/idl.js";
import { CpAmmIdl } from "@meteora-ag/cp-amm-sdk";
import { DynamicBondingCurveIdl, swapQuoteExactIn } from "@meteora-ag/dynamic-bonding-curve-sdk";
import BN from "bn.js";
import bs58 from "bs58";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createCodecs, EVENT_IX_TAG } from "./encode";
import { FIXTURES_DIR } from "../../infra/testing/fixtures";
import { createSimulator, fixtureSimConfigs, decodeFixturePoolConfig } from "./index";
import { sdkPoolConfig } from "./dbc";

// Independent coders straight from the SDK IDLs: the reference the simulator must agree with.
const IDLS: Record<string, Idl> = {
  [DynamicBondingCurveIdl.address]: DynamicBondingCurveIdl as unknown as Idl,
  [CpAmmIdl.address]: CpAmmIdl as unknown as Idl,
};
const CODERS = Object.fromEntries(Object.entries(IDLS).map(([id, idl]) => [id, new BorshCoder(idl)]));
const TAG = Buffer.from(EVENT_IX_TAG).toString("hex");

describe("encoding", () => {
  test("every event and instruction round-trips through Anchor's decoder with the SDK IDLs", () => {
    const txs = createSimulator({ seed: 5, configs: fixtureSimConfigs(5, { creatorTradingFeePercentage: 50 }), pools: 6 }).next(5000);
    const seen = new Map<string, number>();
    for (const t of txs) {
      for (const outer of t.instructions) {
        for (const ins of [outer, ...outer.innerInstructions]) {
          const coder = CODERS[ins.programId];
          if (!coder) continue;
          const idl = IDLS[ins.programId]!;
          const data = Buffer.from(bs58.decode(ins.data));
          if (data.subarray(0, 8).toString("hex") === TAG) {
            const ev = coder.events.decode(data.subarray(8).toString("base64"));
            expect(ev).not.toBeNull();
            expect(ins.accounts.length).toBe(1);
            // re-encoding what Anchor decoded gives the same bytes: no trailing or missing fields
            expect(Buffer.from(coder.types.encode(ev!.name, ev!.data)).equals(data.subarray(16))).toBe(true);
            seen.set(ev!.name, (seen.get(ev!.name) ?? 0) + 1);
          } else {
            const ix = coder.instruction.decode(data);
            expect(ix).not.toBeNull();
            const def = idl.instructions.find((i) => i.name === ix!.name)!;
            expect(ins.accounts.length).toBe(def.accounts.length);
            seen.set(ix!.name, (seen.get(ix!.name) ?? 0) + 1);
          }
        }
      }
    }
    for (const name of [
      "initialize_virtual_pool_with_spl_token", "EvtInitializePool", "swap2", "EvtSwap", "EvtSwap2", "EvtCurveComplete",
      "migration_damm_v2", "initialize_pool", "EvtCreatePosition", "claim_trading_fee", "EvtClaimTradingFee",
      "claim_creator_trading_fee", "EvtClaimCreatorTradingFee", "claim_position_fee", "EvtClaimPositionFee",
    ]) expect(seen.get(name) ?? 0).toBeGreaterThan(0);
  });

  test("re-encoding the real devnet events gives their exact bytes; the event authority matches", () => {
    const codecs = createCodecs();
    const byProgram: Record<string, typeof codecs.dbc> = { [codecs.dbc.programId]: codecs.dbc, [codecs.damm.programId]: codecs.damm };
    let checked = 0;
    for (const file of ["dbc-buy.enhanced.json", "dbc-sell.enhanced.json", "dbc-migrate-damm-v2.enhanced.json"]) {
      const tx = JSON.parse(readFileSync(join(FIXTURES_DIR, "helius-devnet", file), "utf8"));
      for (const outer of tx.instructions)
        for (const ins of outer.innerInstructions) {
          const codec = byProgram[ins.programId];
          const data = Buffer.from(bs58.decode(ins.data));
          if (!codec || data.subarray(0, 8).toString("hex") !== TAG) continue;
          const ev = codec.coder.events.decode(data.subarray(8).toString("base64"));
          if (ev === null) continue; // an event of an older program version
          expect(ins.accounts).toEqual([codec.eventAuthority]);
          expect(bs58.encode(codec.eventBytes(ev.name, ev.data))).toBe(ins.data);
          checked++;
        }
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  test("instruction accounts follow the IDL order (checked against the devnet swap)", () => {
    const codecs = createCodecs();
    const tx = JSON.parse(readFileSync(join(FIXTURES_DIR, "helius-devnet", "dbc-buy.enhanced.json"), "utf8"));
    const swap = tx.instructions.find((i: any) => i.programId === codecs.dbc.programId);
    const names = (DynamicBondingCurveIdl.instructions.find((i) => i.name === "swap")!.accounts as { name: string }[]).map((a) => a.name);
    const given = Object.fromEntries(names.map((n, i) => [n, swap.accounts[i]]));
    delete given.referral_token_account; // optional and absent: Anchor puts the program id there
    expect(codecs.dbc.accounts("swap", given)).toEqual(swap.accounts);
  });

  test("the snake_case PoolConfig converts to what the SDK reads (same quote as the camelCase decoder)", () => {
    const bytes = readFileSync(join(import.meta.dir, "fixtures", "dbc-pool-config.fee-in-both.bin"));
    const camel = new BorshAccountsCoder(convertIdlToCamelCase(DynamicBondingCurveIdl as unknown as Idl));
    const reference = camel.decode("poolConfig", bytes);
    const pool = camel.decode("virtualPool", readFileSync(join(FIXTURES_DIR, "mainnet-accounts", "dbc-virtual-pool.fee-in-both.bin")));
    const mine = sdkPoolConfig(decodeFixturePoolConfig());
    for (const [buy, amount] of [[true, 250_000_000], [false, 3_000_000_000_000]] as const) {
      const a = swapQuoteExactIn(pool, reference, !buy, new BN(amount), 0, false, new BN(1_752_700_000), false);
      const b = swapQuoteExactIn(pool, mine, !buy, new BN(amount), 0, false, new BN(1_752_700_000), false);
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    }
  });
});
