import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../infra/config";
import { createLogger } from "../../infra/log";
import { createSimulator, fixtureSimConfigs } from "../../ingest/simulator";
import { withSimulatedPlatform } from "./simulator";

const SEED = 77;
const configs = fixtureSimConfigs(SEED);
// the fixture PoolConfig's fee_claimer (mainnet dynamic-bonding-curve fee_in_both_config.bin)
const FEE_CLAIMER = "2VuxXtec8Gpcu49y8VZ4yYutbi98WWtRC6Zvvs8APVy1";
const OTHER = "So11111111111111111111111111111111111111112";

function run(env: Record<string, string>) {
  const lines: string[] = [];
  const config = withSimulatedPlatform(loadConfig({ SIMULATOR_SEED: String(SEED), ...env }), configs, createLogger("info", {}, (l) => void lines.push(l)));
  return { config, lines: lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe("withSimulatedPlatform", () => {
  test("unset keys: the simulated platform token (the first pool's mint) and treasury (the fee claimer), and the log says so", () => {
    const { config, lines } = run({});
    const sim = createSimulator({ seed: SEED, configs, pools: 2 });
    sim.next(1); // the first transaction creates the first pool
    const st = sim.state();
    expect(st.pools[0]!.mint).toBe(st.platformTokenMint);
    expect(config.tokenomics.platformTokenMint).toBe(st.platformTokenMint);
    expect(config.treasuryAddress).toBe(FEE_CLAIMER);
    expect(st.treasury).toBe(FEE_CLAIMER);
    expect(config.tokenomics.split).toEqual({ vault: 70, creator: 15, platformBurn: 15 });
    const line = lines.find((l) => l.msg === "simulated platform token and treasury")!;
    expect(line).toMatchObject({ platformTokenMint: st.platformTokenMint, platformTokenMintFrom: "the simulator", treasury: FEE_CLAIMER });
    expect(lines.some((l) => l.level === "warn")).toBe(false);
  });

  test("set keys win; a platform token other than the simulated one is warned about", () => {
    const { config, lines } = run({ PLATFORM_TOKEN_MINT: OTHER, TREASURY_ADDRESS: OTHER });
    expect(config.tokenomics.platformTokenMint).toBe(OTHER);
    expect(config.treasuryAddress).toBe(OTHER);
    expect(lines.find((l) => l.msg === "simulated platform token and treasury")).toMatchObject({ platformTokenMintFrom: "PLATFORM_TOKEN_MINT", treasuryFrom: "TREASURY_ADDRESS" });
    expect(lines.some((l) => l.level === "warn")).toBe(true);
  });
});
