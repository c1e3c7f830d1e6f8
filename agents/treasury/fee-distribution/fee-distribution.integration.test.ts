/**
 * The platform's fee distribution end to end: the job's tick, the real payment executor
 * (in-process turns) signing with the treasury key, embedded Postgres and chDB, and the
 * loopback RPC test double serving the real mainnet PoolConfig (its fee claimer made the
 * test's treasury) and VirtualPools (with partner fees), a DAMM v2 pool built from the real
 * migration event and the treasury's position in it; the double verifies signatures and
 * lands sends, and a test double of the programs (testing/program-effects.ts) emits the
 * claims' events and the swaps' and burns' balance changes.
 *
 * Checked: what was claimed (from the claims' events), the split to the lamport, every
 * payout on the double's chain exactly once, amounts under the minimum payout carried to
 * the next run, the platform-token buyback (account, swap, burn), and every transaction
 * read back through the webhook (ingest) counted by /v1/tokenomics and /v1/analytics/overview.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { testPlatform } from "../../../compose/testing/platform";
import { fixturePoolConfig } from "../../../compose/testing/platform";
import { treasuryBuilders, treasuryOwners } from "../../../compose/treasury";
import { configRegistry, toPlatformConfig } from "../../../ingest/contract/configs";
import { dammV2PoolBytes, dbcPoolWith } from "../../../api/pools/testdata";
import { DBC_PROGRAM, startRpcTestDouble } from "../../../infra/testing/rpc-double";
import { testEngines } from "../../../infra/testing/engines";
import { createSolanaRpc } from "../../../infra/solana-rpc";
import { createLaunchChain } from "../../../infra/solana-tx/chain";
import { createLogger } from "../../../infra/log";
import { refreshDirectory } from "../../../pipelines/agents-sink";
import { runTurn, type ExecutorDeps } from "../executor";
import { batchesOf } from "../batches";
import { paidOnChain } from "../testing/chain-ledger";
import { programEffectsTestDouble, programState } from "../testing/program-effects";
import { CP_AMM_PROGRAM, dammPosition, dammPositionBytes, poolConfigClaimedBy } from "../testing/fee-accounts";
import { feeDistributionTick, type FeeDistributionDeps } from "./job";
import { platformBudget, PLATFORM_BUYBACK } from "./platform-buyback";
import { FEE_CLAIM, FEE_PAYOUT } from "./run";

const addr = () => Keypair.generate().publicKey.toBase58();
const SPLIT = { vault: 70, creator: 15, platformBurn: 15 };
const EXTRA_OUT = 777n;
const treasury = Keypair.generate();
const T = treasury.publicKey.toBase58();
const CONFIG = addr();
const log = createLogger("error");

type Coin = { mint: string; vault: string; creator: string; dbc: string; damm?: string; position?: ReturnType<typeof dammPosition> };
const coins: Record<"a" | "b" | "c" | "d" | "token", Coin> = {} as never;

let rpc: ReturnType<typeof startRpcTestDouble>;
let p: Awaited<ReturnType<typeof testPlatform>>;
let exec: ExecutorDeps;
let job: FeeDistributionDeps;
const state = programState();

/** A platform coin made on CONFIG: its DBC pool (with `partnerFee` lamports for the treasury), and when graduated its DAMM v2 pool and the treasury's position fees. */
async function makeCoin(sql: Awaited<ReturnType<typeof testEngines>>["sql"], partnerFee: bigint, graduated?: { positionFee: bigint }): Promise<Coin> {
  const c: Coin = { mint: addr(), vault: addr(), creator: addr(), dbc: addr() };
  await sql`INSERT INTO agents (mint, coin_name, symbol, creator, vault, config, dbc_pool) VALUES (${c.mint}, 'Coin', 'CN', ${c.creator}, ${c.vault}, ${CONFIG}, ${c.dbc})`;
  await sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${c.dbc}, ${c.mint}, 'dbc', ${CONFIG})`;
  rpc.setAccount(c.dbc, { lamports: 10_000_000, data: await dbcPoolWith({ baseMint: c.mint, config: CONFIG, partnerQuoteFee: partnerFee, partnerBaseFee: 5_000n }), owner: DBC_PROGRAM });
  state.partnerFee.set(c.dbc, { quote: partnerFee, base: 5_000n });
  if (graduated) {
    c.damm = addr();
    await sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${c.damm}, ${c.mint}, 'damm_v2', ${CONFIG})`;
    rpc.setAccount(c.damm, { lamports: 10_000_000, data: (await dammV2PoolBytes(c.mint)).bytes, owner: CP_AMM_PROGRAM });
    c.position = dammPosition({ pool: c.damm, owner: treasury.publicKey, feeAPending: 42n, feeBPending: graduated.positionFee });
    for (const [address, account] of c.position.accounts) rpc.setAccount(address, account);
    state.positionFee.set(c.position.position, { a: 42n, b: graduated.positionFee });
  }
  return c;
}

/** The pools and positions on the double as the programs left them (what the claims took is gone), a new block, and `fees` newly accrued on DBC pools. */
async function nextBlock(fees: [Coin, bigint][] = []) {
  for (const c of Object.values(coins)) {
    const fee = state.partnerFee.get(c.dbc)!;
    const added = fees.find(([x]) => x === c)?.[1] ?? 0n;
    state.partnerFee.set(c.dbc, { quote: fee.quote + added, base: fee.base });
    rpc.setAccount(c.dbc, { lamports: 10_000_000, data: await dbcPoolWith({ baseMint: c.mint, config: CONFIG, partnerQuoteFee: fee.quote + added, partnerBaseFee: fee.base }), owner: DBC_PROGRAM });
    if (c.position) {
      const f = state.positionFee.get(c.position.position)!;
      rpc.setAccount(c.position.position, { lamports: 3_000_000, data: dammPositionBytes(c.damm!, c.position.nftMint, f.a, f.b), owner: CP_AMM_PROGRAM });
    }
  }
  rpc.setBlockHeight(rpc.blockHeight() + 1);
}

beforeAll(async () => {
  rpc = startRpcTestDouble(new Map([[CONFIG, { lamports: 10_000_000, data: poolConfigClaimedBy(treasury.publicKey), owner: DBC_PROGRAM }]]));
  rpc.setClockTime(1_763_900_000);
  state.swapOut = (_pool, _in, minOut) => minOut + EXTRA_OUT;
  rpc.setLandedEffects(programEffectsTestDouble(state));
  const engines = await testEngines();
  // pools are known to ingest before the platform starts (its pool registry loads them)
  coins.a = await makeCoin(engines.sql, 1_234_567_891n);
  coins.b = await makeCoin(engines.sql, 300_000_001n);
  coins.c = await makeCoin(engines.sql, 0n, { positionFee: 500_000_003n });
  coins.d = await makeCoin(engines.sql, 1_100_000n); // its vault's 70 % (770,000) is under the minimum payout
  coins.token = await makeCoin(engines.sql, 0n); // the platform token: a platform coin on its curve
  const configs = configRegistry([toPlatformConfig({ role: "launch", address: CONFIG, ticker: null }, { ...fixturePoolConfig(), fee_claimer: treasury.publicKey }, 9)]);
  p = await testPlatform(configs, { env: { SOLANA_RPC_URL: rpc.url, PLATFORM_TOKEN_MINT: coins.token.mint } });
  await refreshDirectory(engines.sql, engines.ch, configs, Object.values(coins).map((c) => c.mint));
  const solana = createSolanaRpc(rpc.url);
  exec = {
    sql: engines.sql,
    chain: createLaunchChain(solana.connection),
    connection: solana.connection,
    builders: treasuryBuilders({ sql: engines.sql, configs, log }),
    owners: treasuryOwners({ ...engines, log, rpc: solana, configs, split: SPLIT }),
    signers: { sql: engines.sql, vaultEncryptionKey: null, treasuryKey: () => treasury },
    log,
    options: { intervalMs: 50, leaseSeconds: 30, pollSeconds: 0, retrySeconds: 0, batchesPerTurn: 50 },
  };
  job = { sql: engines.sql, rpc: solana, configs, log, treasury: T, split: SPLIT, minutes: 60, platformTokenMint: coins.token.mint };
});
afterAll(() => rpc?.stop());

const runs = () => p.engines.sql<{ id: bigint; status: string; claimed_lamports: string | null; platform_lamports: string | null }[]>`
  SELECT id, status, claimed_lamports::text, platform_lamports::text FROM fee_distributions WHERE treasury = ${T} ORDER BY id`;
async function turnsUntil(done: () => Promise<boolean>, max = 25) {
  for (let i = 0; i < max; i++) {
    if (await done()) return;
    await runTurn(exec);
  }
  throw new Error(`not done after ${max} turns`);
}
const allDone = async () => (await runs()).every((r) => r.status === "done");
/** the transactions the treasury signed that landed, in order of sending */
const landedTreasuryTxs = () => [...new Set(rpc.sent.map((s) => s.signature))];

let run1: { claimed: bigint; vaults: Map<string, bigint>; creators: Map<string, bigint>; platform: bigint };

describe("a fee-distribution run", () => {
  test("claims each pool whose platform fees reach the minimum, splits exactly what the claims' events say, pays vaults and creators once", async () => {
    await feeDistributionTick(job);
    const [r] = await runs();
    expect(r!.status).toBe("claiming");
    const claims = await p.engines.sql<{ pool: string; venue: string; expected_lamports: string }[]>`
      SELECT pool, venue, expected_lamports::text FROM fee_distribution_claims WHERE run_id = ${r!.id.toString()} ORDER BY fee_distribution_claims.expected_lamports`;
    // a, b and d on the curve, c's DAMM v2 position (its DBC pool and the platform token's have nothing to claim)
    expect(claims.map((c) => [c.pool, c.venue, c.expected_lamports])).toEqual([
      [coins.d.dbc, "dbc", "1100000"],
      [coins.b.dbc, "dbc", "300000001"],
      [coins.c.damm!, "damm_v2", "500000003"],
      [coins.a.dbc, "dbc", "1234567891"],
    ]);
    // a tick while it runs starts nothing more
    await feeDistributionTick(job);
    expect(await runs()).toHaveLength(1);

    await turnsUntil(allDone);
    const claimBatches = await batchesOf(p.engines.sql, FEE_CLAIM, [r!.id.toString()]);
    expect(claimBatches.map((b) => [b.builder, b.status, b.payer]).sort()).toEqual([
      ["fee.claim_damm_v2", "confirmed", T],
      ["fee.claim_dbc", "confirmed", T],
      ["fee.claim_dbc", "confirmed", T],
      ["fee.claim_dbc", "confirmed", T],
    ]);
    // claimed = the events' SOL side; the DBC claims left the coin side in the pool (maxBaseAmount 0)
    const claimed = await p.engines.sql<{ mint: string; claimed_lamports: string; claimed_atoms: string }[]>`
      SELECT mint, claimed_lamports::text, claimed_atoms::text FROM fee_distribution_claims WHERE run_id = ${r!.id.toString()} ORDER BY mint`;
    const byMint = new Map(claimed.map((c) => [c.mint, c]));
    expect(byMint.get(coins.a.mint)).toMatchObject({ claimed_lamports: "1234567891", claimed_atoms: "0" });
    expect(byMint.get(coins.c.mint)).toMatchObject({ claimed_lamports: "500000003", claimed_atoms: "42" });
    expect(state.partnerFee.get(coins.a.dbc)).toEqual({ quote: 0n, base: 5_000n });
    // the coin account the DBC SDK opens for the (unclaimed) coin side is closed again in the same transaction
    const dbcClaim = claimBatches.find((b) => b.builder === "fee.claim_dbc")!;
    const [raw] = await p.engines.sql<{ tx: Uint8Array }[]>`SELECT tx FROM payment_transactions WHERE signature = ${dbcClaim.signature}`;
    // (the last token-program instruction: the executor adds its memo after the builder's instructions)
    const close = Transaction.from(Buffer.from(raw!.tx)).instructions.filter((ix) => ix.programId.equals(TOKEN_PROGRAM_ID)).at(-1)!;
    const claimedPool = String(dbcClaim.params.pool);
    const coinOf = Object.values(coins).find((c) => c.dbc === claimedPool)!;
    expect(close.data[0]).toBe(9); // CloseAccount
    expect(close.keys.map((k) => k.pubkey.toBase58())).toEqual([getAssociatedTokenAddressSync(new PublicKey(coinOf.mint), treasury.publicKey, true).toBase58(), T, T]);

    // the split, to the lamport: floor(70 %) and floor(15 %) per agent, the rest to the platform-token budget
    const total = 1_234_567_891n + 300_000_001n + 500_000_003n + 1_100_000n;
    const share = (l: bigint, pct: bigint) => (l * pct) / 100n;
    const vaults = new Map([[coins.a.vault, share(1_234_567_891n, 70n)], [coins.b.vault, share(300_000_001n, 70n)], [coins.c.vault, share(500_000_003n, 70n)]]);
    const creators = new Map([[coins.a.creator, share(1_234_567_891n, 15n)], [coins.b.creator, share(300_000_001n, 15n)], [coins.c.creator, share(500_000_003n, 15n)]]);
    const owedD = { vault: share(1_100_000n, 70n), creator: share(1_100_000n, 15n) };
    const platform = total - [...vaults.values(), ...creators.values()].reduce((s, x) => s + x, 0n) - owedD.vault - owedD.creator;
    expect(vaults.get(coins.a.vault)).toBe(864_197_523n);
    expect(creators.get(coins.a.creator)).toBe(185_185_183n);
    const [done] = await runs();
    expect(done).toMatchObject({ status: "done", claimed_lamports: total.toString(), platform_lamports: platform.toString() });
    const allocations = await p.engines.sql<{ kind: string; mint: string; lamports: string }[]>`SELECT kind, mint, lamports::text FROM fee_allocations WHERE run_id = ${r!.id.toString()}`;
    expect(allocations.reduce((s, a) => s + BigInt(a.lamports), 0n) + platform).toBe(total);

    // on the chain: each vault and creator paid its share once, from the treasury; d waits (under 890,880 lamports)
    const paid = await paidOnChain(rpc, T);
    for (const [recipient, lamports] of [...vaults, ...creators]) expect(paid.byRecipient.get(recipient), recipient).toBe(lamports);
    expect(paid.byRecipient.has(coins.d.vault)).toBe(false);
    expect(paid.byRecipient.has(coins.d.creator)).toBe(false);
    expect(paid.total).toBe([...vaults.values(), ...creators.values()].reduce((s, x) => s + x, 0n));
    expect((await batchesOf(p.engines.sql, FEE_PAYOUT, [r!.id.toString()])).map((b) => [b.builder, b.status])).toEqual([["transfers", "confirmed"]]);
    run1 = { claimed: total, vaults, creators, platform };
  });

  test("the platform-token budget buys the platform token on its pool and burns it, each step its own treasury transaction", async () => {
    await nextBlock();
    const budget = await platformBudget(p.engines.sql);
    expect(budget).toBe(run1.platform);
    await feeDistributionTick(job);
    const open = await p.engines.sql<{ id: bigint; status: string; lamports: bigint }[]>`SELECT id, status, lamports FROM platform_buybacks WHERE mint = ${coins.token.mint}`;
    // the treasury has no account of the platform token yet: it is opened first
    expect(open.map((b) => [b.status, b.lamports])).toEqual([["opening", run1.platform]]);
    expect(await platformBudget(p.engines.sql)).toBe(0n);
    await turnsUntil(async () => (await p.engines.sql`SELECT 1 FROM platform_buybacks WHERE status IN ('opening', 'buying', 'burning')`).length === 0);
    const id = open[0]!.id.toString();
    const steps = await batchesOf(p.engines.sql, PLATFORM_BUYBACK, [id]);
    expect(steps.map((b) => [b.builder, b.status, b.payer])).toEqual([
      ["buyback.open", "confirmed", T],
      ["buyback.swap", "confirmed", T],
      ["buyback.burn", "confirmed", T],
    ]);
    const bought = BigInt(steps[1]!.result!.minimumOut as string) + EXTRA_OUT;
    const [b] = await p.engines.sql<{ status: string; venue: string; atoms_bought: string; atoms_burned: string; swap_signature: string; burn_signature: string }[]>`
      SELECT status, venue, atoms_bought::text, atoms_burned::text, swap_signature, burn_signature FROM platform_buybacks WHERE id = ${id}`;
    expect(b).toEqual({ status: "done", venue: "dbc", atoms_bought: bought.toString(), atoms_burned: bought.toString(), swap_signature: steps[1]!.signature!, burn_signature: steps[2]!.signature! });
    // nothing left to spend: the next tick starts no buyback
    await feeDistributionTick(job);
    expect(await p.engines.sql`SELECT id FROM platform_buybacks WHERE mint = ${coins.token.mint}`).toHaveLength(1);
  });

  test("the next run pays what earlier runs owed once it reaches the minimum payout; a failed payout is owed again and paid once", async () => {
    await nextBlock([[coins.d, 1_300_000n]]);
    // the schedule: the next run is due FEE_DISTRIBUTION_MINUTES after the last one started
    await feeDistributionTick(job);
    expect(await runs()).toHaveLength(1);
    const due = () => p.engines.sql`UPDATE fee_distributions SET started_at = now() - interval '61 minutes' WHERE treasury = ${T}`;
    await due();
    await feeDistributionTick(job);
    expect(await runs()).toHaveLength(2);
    // claims settle; then its payout lands but fails on-chain
    await turnsUntil(async () => (await runs())[1]!.status !== "claiming");
    expect((await runs())[1]).toMatchObject({ status: "paying", claimed_lamports: "1300000" });
    rpc.setConfirmMode("fail");
    try {
      await turnsUntil(allDone);
    } finally {
      rpc.setConfirmMode("immediate");
    }
    expect((await batchesOf(p.engines.sql, FEE_PAYOUT, [(await runs())[1]!.id.toString()])).map((b) => b.status)).toEqual(["failed"]);
    expect((await paidOnChain(rpc, T)).byRecipient.has(coins.d.vault)).toBe(false);
    // the next run has nothing to claim, but pays what is owed: d's vault, 770,000 from run 1 + 910,000 from run 2, in one transfer
    await nextBlock();
    await due();
    await feeDistributionTick(job);
    const third = (await runs())[2]!;
    expect(third).toMatchObject({ status: "paying", claimed_lamports: "0", platform_lamports: "0" });
    await turnsUntil(allDone);
    const paid = await paidOnChain(rpc, T);
    expect(paid.byRecipient.get(coins.d.vault)).toBe(1_680_000n);
    // its creator (165,000 + 195,000) still waits for the minimum payout
    expect(paid.byRecipient.has(coins.d.creator)).toBe(false);
    // nobody was paid twice
    for (const [recipient, lamports] of [...run1.vaults, ...run1.creators]) expect(paid.byRecipient.get(recipient)).toBe(lamports);
    // nothing owed reaches the minimum now: the next due tick starts no run
    await due();
    await feeDistributionTick(job);
    expect(await runs()).toHaveLength(3);
  });
});

describe("read back through ingest", () => {
  test("every treasury transaction posted to the webhook: /v1/tokenomics and /v1/analytics/overview count the claims, payouts, buyback and burn", async () => {
    const before = (await p.call("/v1/tokenomics")).body.totals;
    const revenueBefore = BigInt((await p.call("/v1/analytics/overview?range=all")).body.revenue.lamports);
    const txs = [];
    for (const signature of landedTreasuryTxs()) {
      const res = await fetch(rpc.url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getTransaction", params: [signature, { encoding: "json", maxSupportedTransactionVersion: 0 }] }) });
      const tx = ((await res.json()) as { result: unknown }).result;
      if (tx) txs.push(tx);
    }
    const r = await p.postWebhook(txs);
    expect(r.status).toBe(200);
    const after = (await p.call("/v1/tokenomics")).body.totals;
    const delta = (k: string) => BigInt(after[k]) - BigInt(before[k]);
    const vaultsPaid = [...run1.vaults.values()].reduce((s, x) => s + x, 0n) + 1_680_000n;
    const creatorsPaid = [...run1.creators.values()].reduce((s, x) => s + x, 0n);
    const [pb] = await p.engines.sql<{ lamports: bigint; atoms_burned: string }[]>`SELECT lamports, atoms_burned::text FROM platform_buybacks WHERE mint = ${coins.token.mint}`;
    expect(delta("feesClaimedLamports")).toBe(run1.claimed + 1_300_000n);
    expect(delta("sentToVaultsLamports")).toBe(vaultsPaid);
    expect(delta("paidToCreatorsLamports")).toBe(creatorsPaid);
    expect(delta("buybackSpentLamports")).toBe(BigInt(pb!.lamports));
    expect(delta("platformTokenBurnedAtoms")).toBe(BigInt(pb!.atoms_burned));
    const revenueAfter = BigInt((await p.call("/v1/analytics/overview?range=all")).body.revenue.lamports);
    expect(revenueAfter - revenueBefore).toBe(run1.claimed + 1_300_000n);
  });
});
