/**
 * The platform-token budget when PLATFORM_TOKEN_MINT is not a platform coin: bought through
 * Jupiter's Swap API (the loopback Jupiter API test double, which builds real v0 swap
 * transactions) and burned, by the job's tick and the real payment executor on the loopback
 * RPC test double (its landed effects from the program-effects test double). A platform-wide
 * test (npm test runs it in a process of its own, so with engines of its own): the budget is every
 * run's, so no other test file may add to it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, VersionedTransaction } from "@solana/web3.js";
import { TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { testEngines, type TestEngines } from "../../../infra/testing/engines";
import { startRpcTestDouble } from "../../../infra/testing/rpc-double";
import { startJupiterApiTestDouble, JUPITER_PROGRAM_ID } from "../../../infra/testing/jupiter-api-double";
import { createSolanaRpc } from "../../../infra/solana-rpc";
import { createLaunchChain } from "../../../infra/solana-tx/chain";
import { createLogger } from "../../../infra/log";
import { configRegistry } from "../../../ingest/contract/configs";
import { treasuryBuilders, treasuryOwners } from "../../../compose/treasury";
import { createJupiterClient, WRAPPED_SOL_MINT, type JupiterClient } from "../../swaps/jupiter";
import { runTurn, type ExecutorDeps } from "../executor";
import { batchesOf } from "../batches";
import { programEffectsTestDouble, programState } from "../testing/program-effects";
import { feeDistributionTick, type FeeDistributionDeps } from "./job";
import { platformBudget, PLATFORM_BUYBACK } from "./platform-buyback";

const SPLIT = { vault: 70, creator: 15, platformBurn: 15 };
const API_KEY = "jup-test-key-7c1f0e9a55d2";
const EXTRA_OUT = 321n;
const treasury = Keypair.generate();
const T = treasury.publicKey.toBase58();
const MINT = Keypair.generate().publicKey.toBase58();
const ACCOUNT = getAssociatedTokenAddressSync(new PublicKey(MINT), treasury.publicKey).toBase58();
const RATE = { num: 7n, den: 3n }; // 7 atoms for 3 lamports

const lines: string[] = [];
const log = createLogger("debug", {}, (line) => void lines.push(line));

let engines: TestEngines;
let rpc: ReturnType<typeof startRpcTestDouble>;
let jup: ReturnType<typeof startJupiterApiTestDouble>;
/** the client the job and the builder use: Jupiter's double, or (`unreachable`) a port nothing listens on */
let jupiterUrl = "";
const jupiter: JupiterClient = {
  quote: (q) => createJupiterClient({ url: jupiterUrl, apiKey: API_KEY }).quote(q),
  swap: (q, user) => createJupiterClient({ url: jupiterUrl, apiKey: API_KEY }).swap(q, user),
};
let unreachable = "";
let exec: ExecutorDeps;
let job: FeeDistributionDeps;
const state = programState();

/** A fee-distribution run that put `lamports` into the platform-token budget. */
const fund = (lamports: bigint) =>
  engines.sql`INSERT INTO fee_distributions (treasury, status, claimed_lamports, platform_lamports, split_at, finished_at) VALUES (${T}, 'done', ${lamports.toString()}, ${lamports.toString()}, now(), now())`;
const buybacks = () =>
  engines.sql<{ id: bigint; status: string; lamports: string; venue: string | null; atoms_bought: string | null; atoms_burned: string | null; swap_signature: string | null; burn_signature: string | null; error: string | null }[]>`
    SELECT id, status, lamports::text, venue, atoms_bought::text, atoms_burned::text, swap_signature, burn_signature, error FROM platform_buybacks ORDER BY id`;
async function turnsUntil(done: () => Promise<boolean>, max = 25) {
  for (let i = 0; i < max; i++) {
    if (await done()) return;
    await runTurn(exec);
  }
  throw new Error(`not done after ${max} turns`);
}
const settled = async () => (await engines.sql`SELECT 1 FROM platform_buybacks WHERE status IN ('opening', 'buying', 'burning')`).length === 0;
const distinctSent = () => [...new Set(rpc.sent.map((s) => s.signature))];

beforeAll(async () => {
  engines = await testEngines();
  rpc = startRpcTestDouble();
  const mint = new Uint8Array(82);
  mint[44] = 6; // decimals
  mint[45] = 1; // initialized
  rpc.setAccount(MINT, { lamports: 1_461_600, data: mint, owner: TOKEN_PROGRAM_ID.toBase58() });
  state.decimals = new Map([[MINT, 6]]);
  state.swapOut = (_pool, _in, minOut) => minOut + EXTRA_OUT;
  rpc.setLandedEffects(programEffectsTestDouble(state));
  // the double puts a made-up blockhash in its transactions: the executor must put its own in
  jup = startJupiterApiTestDouble({ atomsPerLamport: RATE, apiKey: API_KEY });
  jupiterUrl = jup.url;
  const dead = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  unreachable = `http://127.0.0.1:${dead.port}/swap/v1`;
  dead.stop(true);
  const solana = createSolanaRpc(rpc.url);
  const configs = configRegistry([]);
  exec = {
    sql: engines.sql,
    chain: createLaunchChain(solana.connection),
    connection: solana.connection,
    builders: treasuryBuilders({ sql: engines.sql, configs, log, jupiter }),
    owners: treasuryOwners({ ...engines, log, rpc: solana, configs, split: SPLIT }),
    signers: { sql: engines.sql, vaultEncryptionKey: null, treasuryKey: () => treasury },
    log,
    options: { intervalMs: 50, leaseSeconds: 30, pollSeconds: 0, retrySeconds: 0, batchesPerTurn: 50 },
  };
  job = { sql: engines.sql, rpc: solana, configs, log, treasury: T, split: SPLIT, minutes: 60, platformTokenMint: MINT, jupiter };
});
afterAll(async () => {
  rpc?.stop();
  jup?.stop();
});

describe("the platform-token budget through Jupiter (the platform token is no platform coin)", () => {
  test("an unreachable or failing aggregator: no buyback starts, the budget waits whole, the next tick tries again", async () => {
    await fund(250_000_000n);
    jupiterUrl = unreachable;
    await feeDistributionTick(job);
    expect(await buybacks()).toHaveLength(0);
    jupiterUrl = jup.url;
    jup.failNext(503);
    await feeDistributionTick(job);
    expect(await buybacks()).toHaveLength(0);
    expect(await platformBudget(engines.sql)).toBe(250_000_000n);
    const waits = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "platform buyback waits");
    expect(waits.map((w) => w.why)).toEqual([
      expect.stringMatching(/^Jupiter cannot buy the platform token now: Jupiter \/quote could not be reached/),
      "Jupiter cannot buy the platform token now: Jupiter /quote answered HTTP 503",
    ]);
    expect(rpc.sent).toHaveLength(0);
  });

  test("the budget buys the token through Jupiter, bounded by the quote's minimum out, then burns what it received: each transaction lands once", async () => {
    const before = jup.requests.length;
    await feeDistributionTick(job);
    const [open] = await buybacks();
    expect(open).toMatchObject({ status: "opening", lamports: "250000000" });
    expect(await platformBudget(engines.sql)).toBe(0n);
    await turnsUntil(settled);
    const steps = await batchesOf(engines.sql, PLATFORM_BUYBACK, [open!.id.toString()]);
    expect(steps.map((b) => [b.builder, b.status, b.payer, b.attempts])).toEqual([
      ["buyback.open", "confirmed", T, 1],
      ["buyback.jupiter", "confirmed", T, 1],
      ["buyback.burn", "confirmed", T, 1],
    ]);
    // the quote the swap was built on: 250,000,000 × 7 / 3 out, 1 % slippage
    const out = (250_000_000n * RATE.num) / RATE.den;
    const minOut = (out * 9_900n) / 10_000n;
    expect(steps[1]!.result).toMatchObject({ aggregator: "jupiter", route: ["Meteora DLMM"], expectedOut: out.toString(), minimumOut: minOut.toString(), tokenProgram: TOKEN_PROGRAM_ID.toBase58(), decimals: 6 });
    const bought = minOut + EXTRA_OUT;
    const [b] = await buybacks();
    expect(b).toMatchObject({ status: "done", venue: null, atoms_bought: bought.toString(), atoms_burned: bought.toString(), swap_signature: steps[1]!.signature, burn_signature: steps[2]!.signature, error: null });
    // the requests: a probe quote at the tick, then the builder's quote and swap, each with the key
    const calls = jup.requests.slice(before);
    expect(calls.map((r) => [r.method, r.path, r.withKey])).toEqual([
      ["GET", "/swap/v1/quote", true],
      ["GET", "/swap/v1/quote", true],
      ["POST", "/swap/v1/swap", true],
    ]);
    expect(calls[1]!.query).toEqual({ inputMint: WRAPPED_SOL_MINT, outputMint: MINT, amount: "250000000", slippageBps: "100", restrictIntermediateTokens: "true" });
    expect(calls[2]!.body).toMatchObject({ userPublicKey: T, wrapAndUnwrapSol: true, dynamicComputeUnitLimit: true, quoteResponse: { otherAmountThreshold: minOut.toString() } });
    // three transactions, each sent and landed once; the swap is Jupiter's v0 transaction, with the executor's blockhash, signed by the treasury
    expect(distinctSent()).toEqual(steps.map((s) => s.signature!));
    expect(rpc.sent).toHaveLength(3);
    const swapTx = VersionedTransaction.deserialize(rpc.sent[1]!.raw);
    expect(swapTx.version).toBe(0);
    expect(swapTx.message.staticAccountKeys[0]!.toBase58()).toBe(T);
    expect(swapTx.message.staticAccountKeys.map((k) => k.toBase58())).toContain(JUPITER_PROGRAM_ID.toBase58());
    const [recorded] = await engines.sql<{ blockhash: string }[]>`SELECT blockhash FROM payment_transactions WHERE signature = ${steps[1]!.signature}`;
    expect(swapTx.message.recentBlockhash).toBe(recorded!.blockhash);
    expect(recorded!.blockhash).toBe(rpc.blockhash());
    expect(state.balances.get(ACCOUNT)).toBe(0n);
    // nothing left to spend: more ticks and turns send nothing
    await feeDistributionTick(job);
    await runTurn(exec);
    expect(await buybacks()).toHaveLength(1);
    expect(rpc.sent).toHaveLength(3);
  });

  test("a swap that fails on-chain leaves the budget whole; the next tick buys with it", async () => {
    await fund(40_000_000n);
    await feeDistributionTick(job);
    const opening = (await buybacks()).at(-1)!;
    expect(opening).toMatchObject({ status: "opening", lamports: "40000000" });
    await runTurn(exec); // the account is opened (the double keeps no accounts a transaction made)
    rpc.setConfirmMode("fail");
    await turnsUntil(settled);
    rpc.setConfirmMode("immediate");
    const failed = (await buybacks()).at(-1)!;
    expect(failed).toMatchObject({ id: opening.id, status: "failed", swap_signature: null, atoms_bought: null });
    expect(failed.error).toMatch(/^the swap did not go through: failed on-chain/);
    expect(await platformBudget(engines.sql)).toBe(40_000_000n);
    const sends = rpc.sent.length;
    await feeDistributionTick(job);
    await runTurn(exec); // the account again
    // under the same blockhash the same quote makes the same transaction as the failed swap: never recorded or sent again
    await runTurn(exec);
    expect(rpc.sent).toHaveLength(sends + 1);
    const waiting = await batchesOf(engines.sql, PLATFORM_BUYBACK, [(await buybacks()).at(-1)!.id.toString()]);
    expect(waiting.map((w) => [w.builder, w.status, w.error])).toEqual([
      ["buyback.open", "confirmed", null],
      ["buyback.jupiter", "queued", "the built transaction is one already recorded; waiting for a newer blockhash"],
    ]);
    rpc.setBlockHeight(rpc.blockHeight() + 1);
    await turnsUntil(settled);
    const done = (await buybacks()).at(-1)!;
    expect(done).toMatchObject({ status: "done", lamports: "40000000" });
    expect(await platformBudget(engines.sql)).toBe(0n);
  });

  test("an aggregator down while the swap is built: tried again, then the buyback fails with the budget whole", async () => {
    await fund(30_000_000n);
    await feeDistributionTick(job);
    await runTurn(exec); // opened
    jup.failNext(502, 502, 502, 502, 502);
    await turnsUntil(settled);
    const failed = (await buybacks()).at(-1)!;
    expect(failed).toMatchObject({ status: "failed", swap_signature: null });
    expect(failed.error).toMatch(/could not be built 5 times: Jupiter \/quote answered HTTP 502/);
    expect(await platformBudget(engines.sql)).toBe(30_000_000n);
  });

  test("the API key goes only in x-api-key: a refusal echoing it, the logs and the stored batches never carry it", async () => {
    const wrong = createJupiterClient({ url: jup.url, apiKey: "jup-wrong-key-0000000000" });
    const e = await wrong.quote({ inputMint: WRAPPED_SOL_MINT, outputMint: MINT, amount: 1n, slippageBps: 100 }).catch((x: Error) => x);
    expect((e as Error).message).toBe('Jupiter /quote answered HTTP 401: {"error":"Unauthorized: invalid api key [redacted]","code":401}');
    const stored = await engines.sql<{ row: string }[]>`SELECT row_to_json(b)::text AS row FROM payment_batches b`;
    expect(lines.length).toBeGreaterThan(0);
    for (const text of [...lines, ...stored.map((s) => s.row)]) expect(text).not.toContain(API_KEY);
  });
});
