/**
 * The analytics overview's recentPayouts with the treasury actions, on the real app, embedded
 * Postgres and chDB: airdrops made through POST /v1/daemons/:mint/airdrops and contests through
 * POST /v1/daemons/:mint/contests and the contest job, paid by the production executor's turns
 * with the chain played by the loopback RPC test double (the contest settled without its feed
 * item uses the executor's settlement through agents/contests/testing/prizes.ts). Each item must
 * be the feed's (`airdrop`, `contest_paid`) to the field, merged in time order with the fee
 * claims; hidden agents', failed, unpaid and unpublished ones are left out. The overview is
 * platform-wide: this file's items are the newest of these engines (other files' rows are older),
 * and the test compares the items of its own coins only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import * as v from "valibot";
import { registryWith, testPlatform } from "../../compose/testing/platform";
import { asWallet, testWalletHeaderAuthenticator } from "../../compose/testing/sign-in";
import { contestAgent, contestBody, newAddress, TEST_VAULT_KEY } from "../../compose/testing/contests";
import { contestJobDeps } from "../../compose/contests";
import { treasuryExecutorDeps } from "../../compose/treasury";
import { startRpcTestDouble, tokenAccount } from "../../infra/testing/rpc-double";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { createLogger } from "../../infra/log";
import { encodeBase58 } from "../../ingest/decoders/base58";
import { loadFirewall } from "../firewall/firewall";
import { runTurn, type ExecutorDeps } from "../../agents/treasury/executor";
import { runContestsOnce, type ContestJobDeps } from "../../agents/contests/job";
import { publishContests } from "../../agents/contests/publish";
import { confirmPrizeBatches } from "../../agents/contests/testing/prizes";
import { AnalyticsOverview } from "./responses";
import { storeTreasuryFacts } from "../../pipelines/priced-rows";

const CONFIG = newAddress();
const configs = registryWith([{ role: "launch", address: CONFIG }]);
let rpc: ReturnType<typeof startRpcTestDouble>;
let p: Awaited<ReturnType<typeof testPlatform>>;
let exec: ExecutorDeps;
let job: ContestJobDeps;
const sql = () => p.engines.sql;

beforeAll(async () => {
  rpc = startRpcTestDouble();
  p = await testPlatform(configs, {
    authenticate: testWalletHeaderAuthenticator,
    env: { SOLANA_RPC_URL: rpc.url, VAULT_ENCRYPTION_KEY: Buffer.from(TEST_VAULT_KEY).toString("base64") },
  });
  const solana = createSolanaRpc(rpc.url);
  const log = createLogger("error");
  exec = { ...treasuryExecutorDeps(p.config, p.engines, configs, solana, log), options: { intervalMs: 50, leaseSeconds: 30, pollSeconds: 0, retrySeconds: 0, batchesPerTurn: 50 } };
  job = contestJobDeps(p.engines, configs, solana, loadFirewall(), log)!;
});
afterAll(() => rpc.stop());

/** A patron agent (airdrops and contests) with `holders` on the double and 5 SOL of claimed fees (a creator claim stored now). */
async function agent(holders: number) {
  const a = await contestAgent(sql(), p.engines.ch, { config: CONFIG, template: "patron", claimedLamports: 5_000_000_000n });
  for (let i = 0; i < holders; i++) rpc.setAccount(newAddress(), tokenAccount(a.mint, newAddress(), BigInt(1_000 + i * 37)));
  return a;
}

/** Executor turns until the agent's airdrops are completed and published. */
async function airdrop(a: { mint: string; creator: string }, lamports: string, ref: string) {
  const r = await p.call(`/v1/daemons/${a.mint}/airdrops`, asWallet(a.creator, "POST", { lamports, ref }));
  expect(r.status).toBe(202);
  for (let i = 0; i < 20; i++) {
    await runTurn(exec);
    const [open] = await sql()<{ n: number }[]>`SELECT count(*)::int AS n FROM airdrops WHERE mint = ${a.mint} AND (completed_at IS NULL OR published_at IS NULL)`;
    if (open!.n === 0) return (await sql()<{ id: string; status: string }[]>`SELECT id::text, status FROM airdrops WHERE mint = ${a.mint} AND ref = ${ref}`)[0]!;
  }
  throw new Error("airdrop still open");
}

/** A top-holders contest, ended and drawn: its prizes queued. */
async function drawnContest(a: { mint: string; creator: string }, budgetLamports: string) {
  const r = await p.call(`/v1/daemons/${a.mint}/contests`, asWallet(a.creator, "POST", contestBody({ kind: "top_holders", budgetLamports, winners: 3 })));
  expect(r.status).toBe(202);
  await sql()`UPDATE contests SET ends_at = now() - interval '1 second' WHERE id = ${r.body.id}`;
  expect(await runContestsOnce(job)).toMatchObject({ drawn: 1, errors: 0 });
  return r.body.id as string;
}

const overview = async (range = "24h") => {
  const r = await p.call(`/v1/analytics/overview?range=${range}`);
  expect(r.status).toBe(200);
  v.parse(AnalyticsOverview, r.body);
  return r.body as v.InferOutput<typeof AnalyticsOverview>;
};
const feedKinds = { airdrop: "airdrop", contest_paid: "contest_prize" } as const;

/** What the overview must list of `mints`: their creator claims (fee_claims) and their feed items of paid actions, newest first. */
async function expectedItems(mints: string[]) {
  const claims = await p.engines.ch.query<{ mint: string; t: number; signature: string; q: string }>(
    "SELECT mint, toUnixTimestamp(at) AS t, signature, toString(quote_amount) AS q FROM fee_claims WHERE mint IN {m:Array(String)} AND role = 'creator'",
    { m: mints },
  );
  const items: { ms: number; chain: boolean; item: Record<string, unknown> }[] = claims.map((c) => ({
    ms: Number(c.t) * 1000,
    chain: true,
    item: { kind: "creator_fee_claim", mint: c.mint, lamports: c.q, at: new Date(Number(c.t) * 1000).toISOString(), signature: c.signature },
  }));
  for (const mint of mints) {
    const feed = (await p.call(`/v1/daemons/${mint}/feed?kinds=airdrop,contest_paid&limit=50`)).body;
    for (const f of feed.items ?? []) {
      const kind = feedKinds[f.kind as keyof typeof feedKinds];
      items.push({ ms: Date.parse(f.at), chain: false, item: { kind, mint, lamports: f.data.paidLamports, at: f.at, signature: f.links.signatures[0], signatures: f.links.signatures } });
    }
  }
  // newest first; a chain fact before an action of the same instant (the merge keys actions with no slot)
  return items.sort((a, b) => b.ms - a.ms || Number(b.chain) - Number(a.chain)).map((x) => x.item);
}

const signatureOf = () => encodeBase58(randomBytes(64));

describe("recentPayouts: airdrops and contest prizes", () => {
  test("each paid airdrop and paid contest once, as its feed item, with every transaction; merged with the claims; hidden, failed, unpaid and unpublished ones left out", async () => {
    const a = await agent(25); // 25 holders: an airdrop to all of them takes two transactions
    const hidden = await agent(3);

    // an airdrop paid in full (two transactions)
    const full = await airdrop(a, "1000000000", "full");
    expect(full.status).toBe("paid");
    // a second later: a creator claim between it and what follows
    await Bun.sleep(1100);
    const between = { mint: a.mint, slot: 7, signature: signatureOf(), ix: 0, inner: -1, at: Math.floor(Date.now() / 1000), kind: "trading_fee", venue: "dbc", role: "creator", pool: newAddress(), claimer: newAddress(), base_amount: 0n, quote_amount: 123_457n };
    await storeTreasuryFacts(p.engines.ch, { claims: [between] });
    await Bun.sleep(20);
    // an airdrop whose transactions all fail: nothing paid, not listed
    rpc.setConfirmMode("fail");
    expect((await airdrop(a, "100000000", "fails")).status).toBe("failed");
    rpc.setConfirmMode("immediate");
    // an airdrop with one of its two transactions refused: partly paid, listed with what it paid and its one transaction
    rpc.rejectNextSend();
    expect((await airdrop(a, "200000000", "partial")).status).toBe("partial");
    // a hidden agent's airdrop: paid, in its feed until hidden, never listed
    expect((await airdrop(hidden, "50000000", "hidden")).status).toBe("paid");
    await sql()`UPDATE agents SET hidden = true WHERE mint = ${hidden.mint}`;

    // a contest paid by the executor (its turn writes contest_paid)
    const paid = await drawnContest(a, "300000000");
    for (let i = 0; i < 10 && (await sql()`SELECT 1 FROM contests WHERE id = ${paid} AND 'contest_paid' = ANY (published)`).length === 0; i++) await runTurn(exec);
    // a contest drawn, its prizes not paid yet, then paid without its feed item written yet
    const later = await drawnContest(a, "150000000");
    const mine = () => overview().then((o) => o.recentPayouts.filter((x) => x.mint === a.mint || x.mint === hidden.mint));
    const whilePaying = await mine();
    await confirmPrizeBatches(sql(), later, signatureOf);
    expect((await sql()<{ status: string }[]>`SELECT status FROM contests WHERE id = ${later}`)[0]!.status).toBe("paid");
    expect(await mine()).toEqual(whilePaying);
    expect(whilePaying.map((x) => x.kind)).toEqual(["contest_prize", "airdrop", "creator_fee_claim", "airdrop", "creator_fee_claim"]);
    await publishContests(job);

    const got = await mine();
    const want = await expectedItems([a.mint]);
    expect(got).toEqual(want as any);
    expect(got.map((x) => x.kind)).toEqual(["contest_prize", "contest_prize", "airdrop", "creator_fee_claim", "airdrop", "creator_fee_claim"]);
    // to the payments: each item's transactions are its confirmed batches', in batch order; lamports what they paid
    const batches = await sql()<{ owner_kind: string; owner_id: string; signature: string; lamports: string }[]>`
      SELECT b.owner_kind, b.owner_id, b.signature, b.lamports::text FROM payment_batches b
      WHERE b.status = 'confirmed' AND b.payer_mint = ${a.mint} ORDER BY b.owner_kind, b.owner_id::bigint, b.seq`;
    const records = await sql()<{ kind: string; id: string; at: Date }[]>`
      SELECT 'airdrop' AS kind, id::text, completed_at AS at FROM airdrops WHERE mint = ${a.mint} AND status <> 'failed'
      UNION ALL SELECT 'contest', id::text, paid_at FROM contests WHERE mint = ${a.mint} ORDER BY at DESC`;
    const actions = got.filter((x) => x.kind === "airdrop" || x.kind === "contest_prize");
    expect(actions.map((x) => [x.at, x.signatures, x.lamports])).toEqual(
      records.map((r) => {
        const of = batches.filter((b) => b.owner_kind === r.kind && b.owner_id === r.id);
        return [r.at.toISOString(), of.map((b) => b.signature), of.reduce((s, b) => s + BigInt(b.lamports), 0n).toString()];
      }),
    );
    expect(actions.map((x) => x.signatures!.length)).toEqual([1, 1, 1, 2]);
    expect(actions.every((x) => x.signature === x.signatures![0])).toBe(true);
    // claims carry no `signatures`; the range does not choose them
    expect(got.filter((x) => x.kind === "creator_fee_claim").every((x) => !("signatures" in x))).toBe(true);
    expect(got.find((x) => x.signature === between.signature)?.lamports).toBe("123457");
    expect(await overview("all").then((o) => o.recentPayouts.filter((x) => x.mint === a.mint))).toEqual(got);
  });
});
