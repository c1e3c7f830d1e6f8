/**
 * The contest job on embedded Postgres and chDB, the chain played by the loopback RPC test
 * double (token accounts, slots, blocks, skipped slots): a raffle ends, fixes its snapshot,
 * commits to a seed slot, waits for its block (a skipped one: the next produced), draws, and
 * queues its prizes once; the winners are recomputed from the public answers alone by the
 * independent implementation; top holders; fewer holders than winners; nobody to draw; the
 * settlement; the feed items; the agent's approved proposals.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Connection } from "@solana/web3.js";
import { registryWith, testPlatform } from "../../compose/testing/platform";
import { asWallet as as, testWalletHeaderAuthenticator } from "../../compose/testing/sign-in";
import { contestAgent, contestBody, newAddress, TEST_VAULT_KEY } from "../../compose/testing/contests";
import { contestJobDeps } from "../../compose/contests";
import { treasuryBuilders, treasuryOwners } from "../../compose/treasury";
import { createLaunchChain } from "../../infra/solana-tx/chain";
import { runTurn, type ExecutorDeps } from "../treasury/executor";
import { paidOnChain } from "../treasury/testing/chain-ledger";
import { startRpcTestDouble, tokenAccount } from "../../infra/testing/rpc-double";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { createLogger } from "../../infra/log";
import { loadFirewall } from "../../api/firewall/firewall";
import { inTx, createProposal } from "../../api/daemons/store";
import type { BatchRow } from "../treasury";
import { runContestsOnce, type ContestJobDeps } from "./job";
import { contestBatchSettled } from "./settle";
import { publishContests } from "./publish";
import { SEED_SLOT_DELAY } from "./seed-block";
import { recomputeRaffle, recomputeTopHolders } from "./testing/independent-draw";
import { confirmPrizeBatches } from "./testing/prizes";
import { createHash } from "node:crypto";
import { encodeBase58 } from "../../ingest/decoders/base58";

const CONFIG = newAddress();
const configs = registryWith([{ role: "launch", address: CONFIG }]);
let p: Awaited<ReturnType<typeof testPlatform>>;
let rpc: ReturnType<typeof startRpcTestDouble>;
let job: ContestJobDeps;
let executor: ExecutorDeps;
const sql = () => p.engines.sql;

beforeAll(async () => {
  rpc = startRpcTestDouble();
  p = await testPlatform(configs, { authenticate: testWalletHeaderAuthenticator, env: { SOLANA_RPC_URL: rpc.url } });
  const solana = createSolanaRpc(rpc.url);
  const log = createLogger("error");
  job = contestJobDeps(p.engines, configs, solana, loadFirewall(), log)!;
  // the payment executor as the agents process runs it, contests' settlement registered
  executor = {
    sql: p.engines.sql,
    chain: createLaunchChain(solana.connection),
    connection: solana.connection,
    builders: treasuryBuilders({ sql: p.engines.sql, configs, log }),
    owners: treasuryOwners({ ...p.engines, log, rpc: solana, configs, split: { vault: 70, creator: 15, platformBurn: 15 } }),
    signers: { sql: p.engines.sql, vaultEncryptionKey: TEST_VAULT_KEY },
    log,
    options: { intervalMs: 50, leaseSeconds: 30, pollSeconds: 0, retrySeconds: 0, batchesPerTurn: 50 },
  };
});
afterAll(() => rpc.stop());

/** moves the double's chain to `slot` (and its account reads with it) */
function moveTo(slot: number) {
  rpc.setBlockHeight(slot - (rpc.slot() - rpc.blockHeight()));
  rpc.setContextSlot(slot);
}

/** An agent whose coin these owners hold (plus its own vault, which never counts). */
async function heldAgent(holdings: bigint[], o: { claimedLamports?: bigint } = {}) {
  const a = await contestAgent(sql(), p.engines.ch, { config: CONFIG, ...o });
  const owners = holdings.map((amount) => ({ owner: newAddress(), amount }));
  for (const h of owners) rpc.setAccount(newAddress(), tokenAccount(a.mint, h.owner, h.amount));
  rpc.setAccount(newAddress(), tokenAccount(a.mint, a.vault, 10n ** 12n));
  return { ...a, owners };
}

async function open(a: { mint: string; creator: string }, body: Record<string, unknown> = {}) {
  const r = await p.call(`/v1/daemons/${a.mint}/contests`, as(a.creator, "POST", contestBody(body)));
  expect(r.status).toBe(202);
  await sql()`UPDATE contests SET ends_at = now() - interval '1 second' WHERE id = ${r.body.id}`;
  return r.body.id as string;
}

const get = async (mint: string, id: string) => (await p.call(`/v1/daemons/${mint}/contests/${id}`)).body;
const batches = async (id: string) =>
  sql()<{ id: bigint; seq: number; status: string; lamports: string; transfers: { recipient: string; lamports: string }[] }[]>`
    SELECT b.id, b.seq, b.status, b.lamports::text,
      (SELECT json_agg(json_build_object('recipient', t.recipient, 'lamports', t.lamports::text) ORDER BY t.i) FROM payment_transfers t WHERE t.batch_id = b.id) AS transfers
    FROM payment_batches b WHERE owner_kind = 'contest' AND owner_id = ${id} ORDER BY seq`;
const spend = async (id: string) => (await sql()<{ status: string; spent: string }[]>`SELECT status, spent_lamports::text AS spent FROM vault_spend WHERE owner_kind = 'contest' AND owner_id = ${id}`)[0];

/** What the payment executor does when a batch lands: the batch confirmed and its owner told, in one transaction. */
/** a transaction signature (64 bytes, base58) standing for prize batch `seq` of contest `id` */
const prizeSignature = (id: string, seq: number) => encodeBase58(createHash("sha512").update(`prize-${id}-${seq}`).digest());
const confirmBatches = (id: string) => confirmPrizeBatches(sql(), id, (seq) => prizeSignature(id, seq));

describe("a holders raffle, end to end", () => {
  test("ends, commits to a seed slot, waits, draws from the next produced block after a skipped one, queues each prize once; anyone recomputes it", async () => {
    moveTo(50_000);
    const a = await heldAgent([5_000_000n, 123_456_789n, 1n, 77_000_000n, 2_500_000n]);
    const id = await open(a, { budgetLamports: "250000000", winners: 3, splitBps: [4000, 3500, 2500] });

    expect(await runContestsOnce(job)).toMatchObject({ committed: 1, drawn: 0, errors: 0 });
    const seedSlot = 50_000 + SEED_SLOT_DELAY;
    const drawing = await get(a.mint, id);
    expect(drawing).toMatchObject({ status: "drawing", seed: { slot: seedSlot, blockSlot: null, blockhash: null }, snapshot: { slot: 50_000 }, proof: null, committedAt: expect.any(String) });
    // the snapshot is public before the seed block exists
    const snap = (await p.call(`/v1/daemons/${a.mint}/contests/${id}/snapshot`)).body;
    expect(snap).toMatchObject({ contestId: id, mint: a.mint, slot: 50_000, snapshotHash: drawing.snapshot.hash, holders: 5 });
    expect(snap.entries.map((e: { owner: string }) => e.owner).sort()).toEqual(a.owners.map((h) => h.owner).sort());

    // the seed slot and the one after it are skipped
    rpc.skipSlots(seedSlot, seedSlot + 1);
    moveTo(seedSlot + 1);
    expect(await runContestsOnce(job)).toMatchObject({ drawn: 0, waiting: 1 });
    moveTo(seedSlot + 2);
    expect(await runContestsOnce(job)).toMatchObject({ drawn: 1, errors: 0 });
    // nothing more to do: drawn once
    expect(await runContestsOnce(job)).toMatchObject({ committed: 0, drawn: 0, waiting: 0 });

    const c = await get(a.mint, id);
    expect(c.status).toBe("paying");
    expect(c.seed).toEqual({ slot: seedSlot, blockSlot: seedSlot + 2, blockhash: expect.any(String) });
    expect(c.proof).toMatchObject({ seedSlot, seedBlockSlot: seedSlot + 2, blockhash: c.seed.blockhash, snapshotSlot: 50_000, snapshotHash: snap.snapshotHash, algorithm: "sha256-cumw-v1" });

    // from the public record alone: the block from any RPC, the holders and the id from the API
    const block = await new Connection(rpc.url).getBlock(c.proof.seedBlockSlot, { transactionDetails: "none", rewards: false, maxSupportedTransactionVersion: 0 });
    expect(block!.blockhash).toBe(c.proof.blockhash);
    const again = await recomputeRaffle({ holders: snap.entries, contestId: c.id, blockhash: block!.blockhash, winners: c.winners, weighting: c.weighting });
    expect(again.snapshotHash).toBe(c.proof.snapshotHash);
    expect(again.draws).toEqual(c.proof.draws);
    expect(c.prizes.map((x: { winner: string }) => x.winner)).toEqual(again.draws.map((d) => d.owner));
    expect(c.prizes.map((x: { lamports: string }) => x.lamports)).toEqual(["100000000", "87500000", "62500000"]);
    const balances = new Map(a.owners.map((h) => [h.owner, h.amount.toString()]));
    expect(c.prizes.map((x: { winner: string; balance: string }) => x.balance)).toEqual(c.prizes.map((x: { winner: string }) => balances.get(x.winner)));

    // the prizes: one batch, one transfer per winner, exactly the prizes
    const queued = await batches(id);
    expect(queued.map((b) => [b.seq, b.status, b.lamports])).toEqual([[0, "queued", "250000000"]]);
    expect(queued[0]!.transfers).toEqual(c.prizes.map((x: { winner: string; lamports: string }) => ({ recipient: x.winner, lamports: x.lamports })));
    expect(c.prizes.map((x: { payment: unknown }) => x.payment)).toEqual([0, 1, 2].map(() => ({ status: "queued", signature: null })));

    // paid: the last batch settles it, the spend settled to what was paid; settling again changes nothing
    await confirmBatches(id);
    const paid = await get(a.mint, id);
    expect([paid.status, typeof paid.paidAt]).toEqual(["paid", "string"]);
    expect(paid.prizes.map((x: { payment: unknown }) => x.payment)).toEqual([0, 1, 2].map(() => ({ status: "confirmed", signature: prizeSignature(id, 0) })));
    expect(await spend(id)).toEqual({ status: "settled", spent: "250000000" });
    await inTx(sql(), async (tx) => contestBatchSettled(tx, (await tx<BatchRow[]>`SELECT * FROM payment_batches WHERE owner_kind = 'contest' AND owner_id = ${id}`)[0]!));
    expect((await get(a.mint, id)).paidAt).toBe(paid.paidAt);

    // the agent's stdout tells each move
    const said = await sql()<{ meta: { change?: string } }[]>`SELECT meta FROM daemon_stdout WHERE mint = ${a.mint} ORDER BY id`;
    expect(said.map((l) => l.meta.change)).toEqual(["contest.opened", "contest.drawing", "contest.drawn", "contest.paid"]);

    // the feed: opened, drawn, paid with its transactions; written once
    await publishContests(job);
    const feed = (await p.call(`/v1/daemons/${a.mint}/feed?kinds=contest_opened,contest_drawn,contest_paid`)).body.items;
    expect(feed.map((i: { kind: string }) => i.kind)).toEqual(["contest_paid", "contest_drawn", "contest_opened"]);
    expect(feed[0]).toMatchObject({ id: `contest_paid:${a.mint}:${id}`, data: { contestId: id, paidLamports: "250000000" }, links: { signatures: [prizeSignature(id, 0)] } });
    expect(feed[1].data).toMatchObject({ contestId: id, seedSlot, seedBlockSlot: seedSlot + 2, blockhash: c.proof.blockhash, winners: c.prizes.map((x: { rank: number; winner: string; lamports: string }) => ({ rank: x.rank, owner: x.winner, lamports: x.lamports })) });
    expect(feed[2].body).toMatch(/^Contest "Weekly raffle" opened: 0\.25 SOL for 3 winner\(s\), ends .*\n\nRules: Hold the coin when it ends\.$/);
    expect((await p.call(`/v1/public/activity?kinds=contest_drawn`)).body.items.some((i: { id: string }) => i.id === `contest_drawn:${a.mint}:${id}`)).toBe(true);
    expect((await sql()<{ published: string[] }[]>`SELECT published FROM contests WHERE id = ${id}`)[0]!.published).toEqual(["contest_drawn", "contest_opened", "contest_paid"]);
    const rows = await p.engines.ch.query<{ n: string }>(`SELECT toString(count()) AS n FROM activity FINAL WHERE mint = {mint:String}`, { mint: a.mint });
    await publishContests(job);
    expect(await p.engines.ch.query(`SELECT toString(count()) AS n FROM activity FINAL WHERE mint = {mint:String}`, { mint: a.mint })).toEqual(rows);
  });

  test("uniform weighting, fewer holders than winners: every holder wins once, the unfilled prizes are never paid nor spent", async () => {
    moveTo(60_000);
    const a = await heldAgent([9_000_000_000n, 1n]);
    const id = await open(a, { weighting: "uniform", budgetLamports: "400000000", winners: 4 });
    await runContestsOnce(job);
    moveTo(60_000 + SEED_SLOT_DELAY);
    await runContestsOnce(job);
    const c = await get(a.mint, id);
    const snap = (await p.call(`/v1/daemons/${a.mint}/contests/${id}/snapshot`)).body;
    expect((await recomputeRaffle({ holders: snap.entries, contestId: id, blockhash: c.proof.blockhash, winners: 4, weighting: "uniform" })).draws).toEqual(c.proof.draws);
    expect(c.prizes.map((x: { winner: string | null }) => x.winner === null)).toEqual([false, false, true, true]);
    expect((await batches(id))[0]!.lamports).toBe("200000000");
    await confirmBatches(id);
    expect(await spend(id)).toEqual({ status: "settled", spent: "200000000" });
  });
});

describe("prizes paid by the vault", () => {
  test("25 winners in two transactions signed by the vault, expired sends and a lost answer on the way: each winner paid its prize exactly once, the contest paid", async () => {
    moveTo(100_000);
    const a = await heldAgent(Array.from({ length: 30 }, (_, i) => BigInt(1_000 + i)));
    const id = await open(a, { budgetLamports: "2000000000", winners: 25 });
    await runContestsOnce(job);
    moveTo(100_000 + SEED_SLOT_DELAY);
    await runContestsOnce(job);
    expect((await batches(id)).map((b) => b.lamports)).toEqual(["1600000000", "400000000"]);

    // both first sends never land and expire; of the rebuilt ones, one lands with its answer lost
    rpc.setConfirmMode("never");
    await runTurn(executor);
    expect((await batches(id)).map((b) => b.status)).toEqual(["sent", "sent"]);
    rpc.setConfirmMode("immediate");
    rpc.setBlockHeight(rpc.blockHeight() + 200);
    rpc.failNextSend(502, { landed: true });
    for (let i = 0; i < 10 && (await get(a.mint, id)).status === "paying"; i++) await runTurn(executor);
    const attempts = await sql()<{ status: string }[]>`
      SELECT t.status FROM payment_transactions t JOIN payment_batches b ON b.id = t.batch_id
      WHERE b.owner_kind = 'contest' AND b.owner_id = ${id} ORDER BY b.seq, t.attempt`;
    expect(attempts.map((t) => t.status)).toEqual(["expired", "confirmed", "expired", "confirmed"]);

    const c = await get(a.mint, id);
    expect(c.status).toBe("paid");
    const onChain = await paidOnChain(rpc, a.vault);
    expect(onChain.total).toBe(2_000_000_000n);
    expect(onChain.byRecipient.size).toBe(25);
    for (const prize of c.prizes) expect(onChain.byRecipient.get(prize.winner)).toBe(BigInt(prize.lamports));
    expect(c.prizes.every((x: { payment: { status: string; signature: string } }) => x.payment.status === "confirmed" && x.payment.signature)).toBe(true);
    expect(await spend(id)).toEqual({ status: "settled", spent: "2000000000" });
    // the executor's turn published the paid item with both transactions
    const paid = (await p.call(`/v1/daemons/${a.mint}/feed?kinds=contest_paid`)).body.items;
    expect(paid).toHaveLength(1);
    expect(paid[0].links.signatures.sort()).toEqual([...new Set(c.prizes.map((x: { payment: { signature: string } }) => x.payment.signature))].sort());
  });
});

describe("top holders", () => {
  test("ranked at the end with no seed: largest balances, ties by address; recomputed from the snapshot", async () => {
    moveTo(70_000);
    const a = await heldAgent([500n, 900n, 900n, 100n, 700n]);
    const id = await open(a, { kind: "top_holders", budgetLamports: "300000000", winners: 3 });
    expect(await runContestsOnce(job)).toMatchObject({ committed: 0, drawn: 1 });
    const c = await get(a.mint, id);
    const snap = (await p.call(`/v1/daemons/${a.mint}/contests/${id}/snapshot`)).body;
    expect(c).toMatchObject({ status: "paying", seed: null, proof: { algorithm: "top-balance-v1", seedSlot: null, blockhash: null, snapshotSlot: 70_000 } });
    expect(c.proof.draws.map((d: { owner: string }) => d.owner)).toEqual(recomputeTopHolders(snap.entries, 3));
    expect(c.prizes.map((x: { balance: string }) => x.balance)).toEqual(["900", "900", "700"]);
  });
});

describe("failures and refusals", () => {
  test("nobody holds the coin: failed, its budget released, the draw still published", async () => {
    moveTo(80_000);
    const a = await heldAgent([]);
    const id = await open(a, { kind: "top_holders", budgetLamports: "100000000", winners: 1 });
    await runContestsOnce(job);
    expect(await get(a.mint, id)).toMatchObject({ status: "failed", statusReason: "no holder had a balance at the snapshot: nobody to draw", proof: { draws: [] } });
    expect(await spend(id)).toEqual({ status: "released", spent: "0" });
    expect(await batches(id)).toHaveLength(0);
  });

  test("an RPC failure at the end leaves the contest open for the next turn; a cancelled contest is never drawn", async () => {
    moveTo(90_000);
    const a = await heldAgent([10n]);
    const id = await open(a, { budgetLamports: "100000000", winners: 1 });
    rpc.failNext(8, { status: 500 });
    const failed = await runContestsOnce(job);
    rpc.clearFailures();
    expect(failed!.errors).toBeGreaterThanOrEqual(1);
    expect((await get(a.mint, id)).status).toBe("open");
    await runContestsOnce(job);
    expect((await get(a.mint, id)).status).toBe("drawing");

    const cancelled = await p.call(`/v1/daemons/${a.mint}/contests`, as(a.creator, "POST", contestBody({ budgetLamports: "100000000", winners: 1 })));
    await p.call(`/v1/daemons/${a.mint}/contests/${cancelled.body.id}/cancel`, as(a.creator, "POST"));
    await sql()`UPDATE contests SET ends_at = now() - interval '1 second' WHERE id = ${cancelled.body.id}`;
    await runContestsOnce(job);
    expect((await get(a.mint, cancelled.body.id)).status).toBe("cancelled");
  });
});

describe("the agent's proposals", () => {
  test("an approved proposal opens a holder raffle through the same service; refused ones are recorded and told; waiting ones wait", async () => {
    const a = await contestAgent(sql(), p.engines.ch, { config: CONFIG, claimedLamports: 500_000_000n });
    const propose = (lamports: string, winners: number, approvedBy?: string) =>
      createProposal(sql(), a.mint, { kind: "contest", payload: { lamports, winners, endsInMinutes: 90, note: "two winners", cycle: 1 }, expiresAt: new Date(Date.now() + 3600_000), approvedBy });
    const ok = await propose("200000000", 2, "agent");
    const poor = await propose("400000000", 4, "agent");
    const waiting = await propose("100000000", 1);
    const turn = await runContestsOnce(job);
    expect(turn).toMatchObject({ created: 1, refused: 1 });

    const list = (await p.call(`/v1/daemons/${a.mint}/contests`)).body.items;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ kind: "holders_raffle", weighting: "balance", title: "Ada holder raffle", rules: "two winners", source: "agent", proposalId: ok.id.toString(), budgetLamports: "200000000", winners: 2 });
    const ends = new Date(list[0].endsAt).getTime() - new Date(list[0].createdAt).getTime();
    expect(ends).toBeGreaterThan(89 * 60_000);
    const executed = await sql()<{ id: bigint; execution: Record<string, any> | null; executed: boolean }[]>`
      SELECT id, execution, executed_at IS NOT NULL AS executed FROM daemon_proposals WHERE mint = ${a.mint} ORDER BY id`;
    expect(executed.map((r) => [r.id, r.executed])).toEqual([[ok.id, true], [poor.id, true], [waiting.id, false]]);
    expect(executed[0]!.execution).toEqual({ contestId: list[0].id });
    expect(executed[1]!.execution!.error.code).toBe("NOT_COVERED");
    const errors = await sql()<{ body: string }[]>`SELECT body FROM daemon_stdout WHERE mint = ${a.mint} AND kind = 'error'`;
    expect(errors.map((e) => e.body)).toEqual([expect.stringContaining(`Could not open the contest of proposal ${poor.id}: the vault's claimed fees cover`)]);
    // taken once
    expect(await runContestsOnce(job)).toMatchObject({ created: 0, refused: 0 });
  });
});
