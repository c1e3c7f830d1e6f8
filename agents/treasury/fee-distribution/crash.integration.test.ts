/**
 * Kill -9 of the real `agents` process (agents/main.ts) during a fee-distribution run: the
 * process reads its platform config from the loopback RPC test double (the mainnet PoolConfig
 * with the test's treasury as fee claimer), unseals the treasury key from TREASURY_SECRET_KEY,
 * and its fee-distribution job claims two pools and pays vaults and creators, signed by the
 * treasury. It is killed with SIGKILL at a step of a batch (TREASURY_EXECUTOR_CRASH_AT), then
 * started again without the hook; the ledger is then checked to the lamport against what the
 * double's chain paid: every vault and creator paid its share once, each pool claimed once.
 * A test double of the programs (testing/program-effects.ts) emits the claims' events.
 *
 * The process runs on a database of its own (made here) and a ClickHouse HTTP test double;
 * each process is stopped whatever the outcome.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { Keypair } from "@solana/web3.js";
import { DBC_PROGRAM, startRpcTestDouble } from "../../../infra/testing/rpc-double";
import type { Sql } from "../../../infra/postgres";
import { dbcPoolWith } from "../../../api/pools/testdata";
import type { CrashStep } from "../executor";
import { paidOnChain } from "../testing/chain-ledger";
import { programEffectsTestDouble, programState } from "../testing/program-effects";
import { poolConfigClaimedBy } from "../testing/fee-accounts";
import { agentsProcessTestbed } from "../testing/agents-process";
import { splitClaims } from "./split";

const addr = () => Keypair.generate().publicKey.toBase58();
const treasury = Keypair.generate();
const T = treasury.publicKey.toBase58();
const CONFIG = addr();
const SPLIT = { vault: 70, creator: 15, platformBurn: 15 };
const state = programState();
let testbed: Awaited<ReturnType<typeof agentsProcessTestbed>>;
let rpc: ReturnType<typeof startRpcTestDouble>;
let db: Sql;
type Coin = { mint: string; vault: string; creator: string; pool: string };
const coins: Coin[] = [];
/** what every vault and creator should have been paid so far */
const expected = new Map<string, bigint>();

beforeAll(async () => {
  testbed = await agentsProcessTestbed("fee_crash");
  db = testbed.db;
  rpc = startRpcTestDouble(new Map([[CONFIG, { lamports: 10_000_000, data: poolConfigClaimedBy(treasury.publicKey), owner: DBC_PROGRAM }]]));
  rpc.setLandedEffects(programEffectsTestDouble(state));
  for (let i = 0; i < 2; i++) {
    const c = { mint: addr(), vault: addr(), creator: addr(), pool: addr() };
    await db`INSERT INTO agents (mint, coin_name, symbol, creator, vault, config, dbc_pool) VALUES (${c.mint}, 'Coin', 'CN', ${c.creator}, ${c.vault}, ${CONFIG}, ${c.pool})`;
    await db`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${c.pool}, ${c.mint}, 'dbc', ${CONFIG})`;
    coins.push(c);
  }
}, 120_000);
afterAll(async () => {
  rpc?.stop();
  await testbed?.stop();
});

/** The platform config read from the double, the treasury key, a fee distribution every hour. */
const env = () => ({
  SOLANA_RPC_URL: rpc.url,
  PLATFORM_CONFIGS: `launch:${CONFIG}`,
  VAULT_ENCRYPTION_KEY: Buffer.from(new Uint8Array(32).fill(7)).toString("base64"),
  TREASURY_SECRET_KEY: bs58.encode(treasury.secretKey),
  FEE_DISTRIBUTION_MINUTES: "60",
});

/** New partner fees on both pools (a new block), a run due, and what its split pays. */
async function feesAccrued(fees: [bigint, bigint]) {
  for (const [i, c] of coins.entries()) {
    rpc.setAccount(c.pool, { lamports: 10_000_000, data: await dbcPoolWith({ baseMint: c.mint, config: CONFIG, partnerQuoteFee: fees[i]! }), owner: DBC_PROGRAM });
    state.partnerFee.set(c.pool, { quote: fees[i]!, base: 0n });
  }
  rpc.setBlockHeight(rpc.blockHeight() + 1);
  await db`UPDATE fee_distributions SET started_at = now() - interval '61 minutes'`;
  for (const a of splitClaims(coins.map((c, i) => ({ ...c, lamports: fees[i]! })), SPLIT).allocations) expected.set(a.recipient, (expected.get(a.recipient) ?? 0n) + a.lamports);
}

const crashAt = (step: CrashStep) => testbed.crashAt(env(), step);

/** Started again without the hook until `runs` runs are done; then stopped cleanly. */
async function recover(runs: number): Promise<void> {
  const code = await testbed.runUntil(
    env(),
    `${runs} fee-distribution runs done after the restart`,
    async () => (await db<{ n: number }[]>`SELECT count(*)::int AS n FROM fee_distributions WHERE status = 'done'`)[0]!.n >= runs,
    () => db`SELECT owner_kind, owner_id, seq, status, attempts, error FROM payment_batches ORDER BY id`,
  );
  expect(code).toBe(0);
}

async function expectLedgerExact(runs: number) {
  const paid = await paidOnChain(rpc, T);
  expect(paid.byRecipient.size).toBe(expected.size);
  for (const [recipient, lamports] of expected) expect(paid.byRecipient.get(recipient)).toBe(lamports);
  // each pool claimed once per run: one confirmed claim batch per pool and run, each with one transaction
  const claims = await db<{ n: number; attempts: number }[]>`SELECT count(*)::int AS n, max(attempts) AS attempts FROM payment_batches WHERE owner_kind = 'fee_claim' AND status = 'confirmed'`;
  expect(claims[0]).toEqual({ n: 2 * runs, attempts: 1 });
  expect(Number((await db<{ n: number }[]>`SELECT count(*)::int AS n FROM fee_distributions WHERE status = 'done'`)[0]!.n)).toBe(runs);
}

describe("kill -9 during a fee-distribution run, then a restart: each pool claimed once, every payout made once", () => {
  let runs = 0;
  for (const step of ["sent", "settled"] as const)
    test(`killed at ${step}`, async () => {
      await feesAccrued([1_000_000_007n + BigInt(runs), 300_000_011n]);
      runs++;
      await crashAt(step);
      await recover(runs);
      await expectLedgerExact(runs);
    }, 300_000);
});
