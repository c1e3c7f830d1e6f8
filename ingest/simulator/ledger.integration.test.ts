/**
 * Simulated traffic through the real webhook and sink (embedded Postgres and chDB), and
 * the stored facts against the simulator's ledger: the treasury's fee claims, buybacks and
 * burns of the platform token, every coin's burns, per coin and owner the token balances
 * (token_balances) and the treasury's flows (treasury_flows).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { testPlatform } from "../../compose/testing/platform";
import { createSimulator, fixtureSimConfigs, type SimulatorState } from "./index";
import { simulatedConfigRegistry } from "./platform-configs";

const SEED = 919; // its own mints and wallets: no other test uses this seed
const STEPS = 6000;
const DBC_AUTHORITY = "FhVo3mqL8PW5pH5U2CN4XE33DokiyZnUwuGpH2hmHLuM";
const DAMM_AUTHORITY = "HLnpSz9h2S4hiLQ43rnSD9XkcUThA7B8hQMKmDaiTLcC";

type Platform = Awaited<ReturnType<typeof testPlatform>>;

let p: Platform;
let st: SimulatorState;
/** this test's transactions: the treasury (the fixture config's fee claimer) is every simulated chain's, in engines other test files share */
let signatures: string[] = [];
let mints: string[];

const big = (v: unknown) => BigInt(String(v ?? 0));

async function one(sql: string, params: Record<string, unknown>): Promise<Record<string, string>> {
  const [row] = await p.engines.ch.query<Record<string, string>>(sql, params);
  return row!;
}

beforeAll(async () => {
  const configs = fixtureSimConfigs(SEED, { creatorTradingFeePercentage: 20 });
  const sim = createSimulator({ seed: SEED, configs, pools: 6, recordLedger: true, startTime: Math.floor(Date.now() / 1000) - STEPS, secondsPerTx: 1 });
  const platform = sim.state();
  p = await testPlatform(simulatedConfigRegistry(configs), { env: { PLATFORM_TOKEN_MINT: platform.platformTokenMint, TREASURY_ADDRESS: platform.treasury } });
  for (let i = 0; i < STEPS; i += 250) {
    const batch = sim.next(250);
    signatures.push(...batch.map((tx) => tx.signature));
    expect((await p.postWebhook(batch)).status).toBe(200);
  }
  st = sim.state();
  mints = st.pools.map((x) => x.mint);
}, 600_000);

describe("stored facts equal the simulator's ledger", () => {
  test("the traffic has what the ledger speaks of: payouts, buybacks, burns, holder transfers", () => {
    const c = st.counts;
    expect(c.treasuryPayouts).toBeGreaterThan(0);
    expect(c.buybacks).toBeGreaterThan(0);
    expect(c.treasuryBurns).toBe(c.buybacks);
    expect(c.holderTransfers).toBeGreaterThan(0);
    expect(st.ledger.treasury.claimedLamports).toBeGreaterThan(0n);
    expect(p.config.tokenomics.platformTokenMint).toBe(st.platformTokenMint);
  });

  test("fee claims: the treasury's claimed SOL", async () => {
    const r = await one("SELECT toString(sum(quote_amount)) AS q FROM fee_claims WHERE mint IN {m:Array(String)} AND claimer = {t:String}", { m: mints, t: st.treasury });
    expect(big(r.q)).toBe(st.ledger.treasury.claimedLamports);
  });

  test("buybacks: the treasury's trades of the platform token, lamports and atoms", async () => {
    const r = await one(
      "SELECT toString(count()) AS n, toString(sum(amount_quote)) AS q, toString(sum(amount_base)) AS b, toString(countIf(side != 'buy')) AS sells FROM trades WHERE mint = {m:String} AND trader = {t:String}",
      { m: st.platformTokenMint, t: st.treasury },
    );
    expect(Number(r.n)).toBe(st.ledger.buybacks.length);
    expect(Number(r.sells)).toBe(0);
    expect(big(r.q)).toBe(st.ledger.treasury.buybackLamports);
    expect(big(r.b)).toBe(st.ledger.treasury.buybackAtoms);
  });

  test("burns: the treasury burned what it bought back; every coin's burns match the payloads' supply changes", async () => {
    const r = await one("SELECT toString(sum(amount)) AS a, toString(count()) AS n FROM burns WHERE mint = {m:String} AND authority = {t:String}", { m: st.platformTokenMint, t: st.treasury });
    expect(big(r.a)).toBe(st.ledger.treasury.burnedAtoms);
    expect(Number(r.n)).toBe(st.ledger.burns.length);
    // per coin: supply minted into its base vault, minus what every account holds, is what was burned
    const rows = await p.engines.ch.query<{ mint: string; burned: string }>("SELECT mint, toString(sum(amount)) AS burned FROM burns WHERE mint IN {m:Array(String)} GROUP BY mint", { m: mints });
    const stored = new Map(rows.map((x) => [x.mint, big(x.burned)]));
    for (const mint of mints) {
      const held = [...st.ledger.balancesOf(mint).values()].reduce((a, b) => a + b, 0n);
      expect(stored.get(mint) ?? 0n).toBe(1_000_000_000_000_000n - held);
    }
  });

  const tokenBalanceRows = async () => Number((await one("SELECT toString(count()) AS n FROM token_balances WHERE mint IN {m:Array(String)}", { m: mints })).n);
  const treasuryRows = async () => Number((await one("SELECT toString(count()) AS n FROM treasury_flows WHERE treasury = {t:String} AND signature IN {s:Array(String)}", { t: st.treasury, s: signatures })).n);

  // Enabled by the holders lane's token_balance decoder and rows (skipped while no rows arrive).
  test("token balances per coin and owner ", async () => {
    expect(await tokenBalanceRows()).toBeGreaterThan(0);
    for (const mint of mints) {
      const rows = await p.engines.ch.query<{ owner: string; balance: string }>(
        "SELECT owner, toString(sum(amount)) AS balance FROM token_balances FINAL WHERE mint = {m:String} AND kind = 'tx' GROUP BY owner HAVING sum(amount) != 0",
        { m: mint },
      );
      // every owner's balance but the pools' vaults', which are never holders and not stored
      const held = new Map([...st.ledger.balancesOf(mint)].filter(([owner]) => owner !== DBC_AUTHORITY && owner !== DAMM_AUTHORITY));
      expect(new Map(rows.map((x) => [x.owner, big(x.balance)]))).toEqual(held);
      expect(rows.some((x) => x.owner === DBC_AUTHORITY || x.owner === DAMM_AUTHORITY)).toBe(false);
    }
  });

  // Enabled by the treasury lane's sol_transfer / sol_balance decoders and the treasury derivation.
  test("treasury flows: payouts to vaults and creators, buybacks", async () => {
    expect(await treasuryRows()).toBeGreaterThan(0);
    const vaults = st.pools.map((x) => x.creator);
    const r = await one(
      `SELECT toString(sumIf(lamports, kind = 'transfer' AND recipient IN {v:Array(String)})) AS vaults,
              toString(sumIf(lamports, kind = 'transfer' AND recipient IN {c:Array(String)})) AS creators,
              toString(sumIf(lamports, kind = 'buyback')) AS buyback_lamports,
              toString(sumIf(atoms, kind = 'buyback')) AS buyback_atoms,
              toString(countIf(kind = 'buyback')) AS buybacks
       FROM treasury_flows FINAL WHERE treasury = {t:String} AND signature IN {s:Array(String)}`,
      { t: st.treasury, s: signatures, v: vaults, c: st.pools.map((x) => x.payer) },
    );
    const l = st.ledger.treasury;
    expect(big(r.vaults)).toBe(l.sentToVaultsLamports);
    expect(big(r.creators)).toBe(l.paidToCreatorsLamports);
    expect(big(r.buyback_lamports)).toBe(l.buybackLamports);
    expect(big(r.buyback_atoms)).toBe(l.buybackAtoms);
    expect(Number(r.buybacks)).toBe(st.ledger.buybacks.length);
  });
});
