/**
 * The treasury end to end on real engines (chDB + embedded Postgres through the all-in-one
 * platform): Helius enhanced payloads of a partner fee claim by the configs' fee claimer,
 * SOL payouts to an agent's vault and to its creator, a platform-token buyback and a
 * platform-token burn, delivered twice and shuffled, give exactly the rows the test's own
 * ledger says, once each.
 */
import { afterAll, expect, test } from "bun:test";
import { testPlatform } from "../compose/testing/platform";
import { buyback, newAddress, payout, platformBurn, withClaimBalances } from "../compose/testing/treasury-payloads";
import { createSimulator, fixtureSimConfigs, type EnhancedTransaction, type Intent } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { Rng } from "../ingest/simulator/random";

const SEED = 117;
const simConfigs = fixtureSimConfigs(SEED);
const configs = simulatedConfigRegistry(simConfigs);
const TREASURY = newAddress();
const PLATFORM_TOKEN = newAddress();
const platform = testPlatform(configs, { env: { TREASURY_ADDRESS: TREASURY, PLATFORM_TOKEN_MINT: PLATFORM_TOKEN } });
afterAll(async () => (await platform).decoder.close());

test("claims, payouts, a buyback and a burn: exact rows in treasury_flows, fee_claims and burns; redelivered and shuffled, nothing doubles", async () => {
  const p = await platform;
  const feeClaimer = configs.all[0]!.feeClaimer;
  expect(configs.all.every((c) => c.feeClaimer === feeClaimer)).toBe(true);

  // a platform coin and a partner claim of its fees, from the simulator
  const sim = createSimulator({ seed: SEED, configs: simConfigs, pools: 1, recordIntents: true });
  const txs = sim.next(400);
  const intents = sim.state().intents! as Intent[];
  const created = intents.find((i) => i.kind === "pool_created")!;
  const claim = intents.find((i) => i.kind === "fee_claim" && i.venue === "dbc" && i.role === "partner" && i.quoteAmount > 0n)!;
  if (created.kind !== "pool_created" || claim?.kind !== "fee_claim") throw new Error("the simulator made no pool or no partner claim");
  expect(claim.claimer).toBe(feeClaimer);
  const bySignature = (s: string) => txs.find((t) => t.signature === s)!;
  const vault = created.creator; // the agent's vault is the pool creator, its creator the fee payer (agents-sink.ts)
  const creator = created.payer;
  expect(vault).not.toBe(creator);

  const t0 = 1_760_000_000;
  const accounts = { treasuryWsol: newAddress(), treasuryToken: newAddress(), poolWsol: newAddress(), poolToken: newAddress(), poolAuthority: newAddress(), router: newAddress() };
  const ledger = { toVault: 700_000_000n, toCreator: 150_000_000n, wrap: 200_000_000n, spent: 150_000_000n, bought: 4_321_000_000n, burned: 1_000_000_000n };
  const payloads: EnhancedTransaction[] = [
    bySignature(created.signature),
    withClaimBalances(bySignature(claim.signature), claim),
    payout(feeClaimer, vault, ledger.toVault, t0 + 10),
    payout(TREASURY, creator, ledger.toCreator, t0 + 20),
    buyback(TREASURY, PLATFORM_TOKEN, accounts, ledger.wrap, ledger.spent, ledger.bought, t0 + 30),
    platformBurn(TREASURY, PLATFORM_TOKEN, accounts.treasuryToken, ledger.burned, t0 + 40),
  ];
  const signatures = payloads.map((t) => t.signature);
  const [, , toVault, toCreator, bought, burned] = payloads;

  // twice, shuffled, in batches of two (the claim may arrive before its pool: parked, then replayed)
  const rng = new Rng(SEED);
  const deliveries = [...payloads, ...payloads];
  for (let i = deliveries.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
  }
  for (let i = 0; i < deliveries.length; i += 2) expect((await p.postWebhook(deliveries.slice(i, i + 2))).status).toBe(200);

  const ch = p.engines.ch;
  const flows = await ch.query<Record<string, string | number>>(
    `SELECT signature, kind, treasury, recipient, toString(lamports) AS lamports, toString(atoms) AS atoms, toUnixTimestamp(at) AS at
     FROM treasury_flows WHERE signature IN {s:Array(String)} ORDER BY at`,
    { s: signatures },
  );
  expect(flows).toEqual([
    { signature: toVault!.signature, kind: "transfer", treasury: feeClaimer, recipient: vault, lamports: "700000000", atoms: "0", at: t0 + 10 },
    { signature: toCreator!.signature, kind: "transfer", treasury: TREASURY, recipient: creator, lamports: "150000000", atoms: "0", at: t0 + 20 },
    // the wrap (a transfer to its own wSOL account) is no payout; SOL spent = wrapped - still wrapped
    { signature: bought!.signature, kind: "buyback", treasury: TREASURY, recipient: "", lamports: String(ledger.spent), atoms: String(ledger.bought), at: t0 + 30 },
  ]);

  const claims = await ch.query<Record<string, string>>(
    "SELECT mint, role, kind, claimer, toString(base_amount) AS base, toString(quote_amount) AS quote FROM fee_claims WHERE signature IN {s:Array(String)}",
    { s: signatures },
  );
  expect(claims).toEqual([{ mint: created.mint, role: "partner", kind: "trading_fee", claimer: feeClaimer, base: String(claim.baseAmount), quote: String(claim.quoteAmount) }]);

  // priced and classified by the sink (pipelines/priced-rows.ts), once each however delivered: the claim with its coin's
  // config (mirrored before it, even when it waited parked for its pool), each payout classified when stored or, stored
  // before its agent, when the agent was mirrored
  const priced = await ch.query<Record<string, string>>(
    "SELECT mint, config, toString(lamports) AS lamports FROM fee_claims_usd WHERE signature IN {s:Array(String)}",
    { s: signatures },
  );
  expect(priced).toEqual([{ mint: created.mint, config: created.config, lamports: String(claim.quoteAmount) }]);
  const transfers = await ch.query<Record<string, string>>(
    "SELECT signature, toString(lamports) AS lamports FROM treasury_transfers WHERE signature IN {s:Array(String)} ORDER BY at",
    { s: signatures },
  );
  expect(transfers).toEqual([
    { signature: toVault!.signature, lamports: String(ledger.toVault) },
    { signature: toCreator!.signature, lamports: String(ledger.toCreator) },
  ]);
  const payouts = await ch.query<Record<string, string>>(
    "SELECT signature, mint, toString(payout) AS payout FROM treasury_payouts FINAL WHERE signature IN {s:Array(String)} ORDER BY at",
    { s: signatures },
  );
  expect(payouts).toEqual([
    { signature: toVault!.signature, mint: created.mint, payout: "vault" },
    { signature: toCreator!.signature, mint: created.mint, payout: "creator" },
  ]);

  const burns = await ch.query<Record<string, string>>(
    "SELECT signature, mint, account, authority, toString(amount) AS amount FROM burns WHERE mint = {m:String}",
    { m: PLATFORM_TOKEN },
  );
  expect(burns).toEqual([{ signature: burned!.signature, mint: PLATFORM_TOKEN, account: accounts.treasuryToken, authority: TREASURY, amount: String(ledger.burned) }]);
  const [total] = await ch.query<{ burned: string }>("SELECT toString(sum(burned)) AS burned FROM burn_totals WHERE mint = {m:String}", { m: PLATFORM_TOKEN });
  expect(total!.burned).toBe(String(ledger.burned));

  // every transaction stored once
  const [ledgerRows] = await ch.query<{ n: string; u: string }>("SELECT toString(count()) AS n, toString(uniqExact(signature)) AS u FROM transactions WHERE signature IN {s:Array(String)}", { s: signatures });
  expect(ledgerRows).toEqual({ n: String(payloads.length), u: String(payloads.length) });

  // read-time classification of payouts through the directory's vault and creator
  const classified = await ch.query<{ signature: string; to: string }>(
    `SELECT f.signature AS signature, multiIf(f.recipient = d.vault, 'vault', f.recipient = d.creator, 'creator', 'other') AS to
     FROM treasury_flows AS f
     LEFT JOIN (SELECT mint, argMax(vault, version) AS vault, argMax(creator, version) AS creator FROM agent_directory WHERE mint = {m:String} GROUP BY mint) AS d
       ON f.recipient = d.vault OR f.recipient = d.creator
     WHERE f.kind = 'transfer' AND f.signature IN {s:Array(String)} ORDER BY f.at`,
    { m: created.mint, s: signatures },
  );
  expect(classified).toEqual([
    { signature: toVault!.signature, to: "vault" },
    { signature: toCreator!.signature, to: "creator" },
  ]);
}, 120_000);
