/**
 * Airdrops on the real app, embedded Postgres and chDB, with the chain played by the loopback
 * RPC test double and the payments made by the production executor's turns (compose/treasury.ts):
 * every refusal and limit, preview moving nothing, the idempotent ref, batches to the lamport,
 * the public list, snapshot and feed item, and the runtime's approved proposals.
 * Sign-in is a test authenticator reading a header (the wallet sign-in is api/auth's).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { registryWith, testPlatform } from "../../compose/testing/platform";
import { treasuryExecutorDeps } from "../../compose/treasury";
import { startRpcTestDouble } from "../../infra/testing/rpc-double";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { runTurn, type ExecutorDeps } from "../../agents/treasury/executor";
import { agentWithVault, claimedFees, holdersOnChain, newAddress, testVaultEncryptionKey, type TestAgent } from "../../agents/treasury/testing/agents";
import { paidOnChain } from "../../agents/treasury/testing/chain-ledger";
import { MIN_PAYOUT_LAMPORTS } from "../../agents/treasury/airdrops/shares";
import { createProposal } from "../daemons/store";
import { createLogger } from "../../infra/log";
import type { Authenticate } from "../daemons/operator";

const CONFIG = newAddress();
const configs = registryWith([{ role: "launch", address: CONFIG }]);
const key = testVaultEncryptionKey();
const SOL = 1_000_000_000n;
const auth: Authenticate = async (request) => {
  const wallet = request.headers.get("x-test-wallet");
  return wallet ? { address: wallet } : null;
};

let rpc: ReturnType<typeof startRpcTestDouble>;
let p: Awaited<ReturnType<typeof testPlatform>>;
let noChain: Awaited<ReturnType<typeof testPlatform>>;
let exec: ExecutorDeps;

beforeAll(async () => {
  rpc = startRpcTestDouble();
  p = await testPlatform(configs, { authenticate: auth, env: { SOLANA_RPC_URL: rpc.url, VAULT_ENCRYPTION_KEY: Buffer.from(key).toString("base64") } });
  noChain = await testPlatform(configs, { authenticate: auth });
  exec = { ...treasuryExecutorDeps(p.config, p.engines, configs, createSolanaRpc(rpc.url), createLogger("error")), options: { intervalMs: 50, leaseSeconds: 30, pollSeconds: 0, retrySeconds: 0, batchesPerTurn: 50 } };
});
afterAll(() => rpc.stop());

const sql = () => p.engines.sql;
const post = (platform: typeof p, mint: string, wallet: string | null, body: unknown) =>
  platform.call(`/v1/daemons/${mint}/airdrops`, {
    method: "POST",
    headers: { ...(wallet ? { "x-test-wallet": wallet } : {}), "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** A patron agent (reward.airdrop) with its vault key held, `holders` on-chain and `claimed` lamports of claimed fees. */
async function setUp(o: { holders?: bigint[]; claimed?: bigint; template?: string; keyHeld?: boolean } = {}) {
  const a = await agentWithVault(sql(), { encryptionKey: o.keyHeld === false ? null : key, template: o.template ?? "patron", config: CONFIG });
  const holders = new Map((o.holders ?? [600n, 300n, 100n]).map((amount) => [newAddress(), amount] as const));
  holdersOnChain(rpc, a.mint, holders);
  if (o.claimed) await claimedFees(p.engines.ch, a.mint, a.vault.publicKey.toBase58(), o.claimed);
  return { ...a, holders };
}
const rows = async (mint: string) => ({
  airdrops: (await sql()`SELECT id FROM airdrops WHERE mint = ${mint}`).length,
  snapshots: (await sql()`SELECT id FROM holder_snapshots WHERE mint = ${mint}`).length,
  batches: (await sql()`SELECT id FROM payment_batches WHERE payer_mint = ${mint}`).length,
  spend: (await sql()`SELECT id FROM vault_spend WHERE mint = ${mint}`).length,
});
async function payAll(mint: string) {
  for (let i = 0; i < 20; i++) {
    await runTurn(exec);
    const [open] = await sql()<{ n: number }[]>`SELECT count(*)::int AS n FROM airdrops WHERE mint = ${mint} AND (completed_at IS NULL OR published_at IS NULL)`;
    if (open!.n === 0) return;
  }
  throw new Error("airdrops still open");
}

describe("POST /v1/daemons/:mint/airdrops: who and what", () => {
  test("401 without sign-in, 400 for a bad mint, 404 unknown agent, 403 for another wallet", async () => {
    const a = await setUp();
    expect((await post(p, a.mint, null, { lamports: "1000000000" })).body.error.code).toBe("AUTH_REQUIRED");
    expect((await post(p, "not-a-mint", a.creator, { lamports: "1000000000" })).status).toBe(400);
    const unknown = await post(p, newAddress(), a.creator, { lamports: "1000000000" });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "NOT_FOUND"]);
    const other = await post(p, a.mint, newAddress(), { lamports: "1000000000" });
    expect([other.status, other.body.error.code]).toEqual([403, "NOT_OPERATOR"]);
  });

  test("400 VALIDATION_ERROR listing every problem: over 2 SOL, below the minimum payout, bad mode, bad ref, unknown field, not an object", async () => {
    const a = await setUp();
    const r = await post(p, a.mint, a.creator, { lamports: "2000000001", mode: "dry", ref: "bad ref!", extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("VALIDATION_ERROR");
    expect(r.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(["extra", "lamports", "mode", "ref"]);
    expect(r.body.error.details.find((d: { field: string }) => d.field === "lamports").message).toBe("must be at most 2 SOL per airdrop (2000000000 lamports)");
    const low = await post(p, a.mint, a.creator, { lamports: String(MIN_PAYOUT_LAMPORTS - 1n) });
    expect(low.body.error.details).toEqual([{ field: "lamports", message: `must be at least the minimum payout (${MIN_PAYOUT_LAMPORTS} lamports)` }]);
    expect((await post(p, a.mint, a.creator, { lamports: "1.5" })).body.error.details[0].field).toBe("lamports");
    expect((await post(p, a.mint, a.creator, {})).body.error.details).toEqual([{ field: "lamports", message: "is required" }]);
    expect((await post(p, a.mint, a.creator, "[1]")).body.error.details).toEqual([{ field: "body", message: "must be a JSON object" }]);
    // exactly 2 SOL is allowed (refused later only for what the vault does not cover)
    expect((await post(p, a.mint, a.creator, { lamports: 2_000_000_000, mode: "preview" })).status).toBe(200);
    expect(await rows(a.mint)).toEqual({ airdrops: 0, snapshots: 0, batches: 0, spend: 0 });
  });

  test("409 CAPABILITY_MISSING for a template without reward.airdrop; 409 VAULT_KEY_MISSING when the platform does not hold the vault key", async () => {
    const baseline = await setUp({ template: "baseline", claimed: SOL });
    const r = await post(p, baseline.mint, baseline.creator, { lamports: "1000000" });
    expect([r.status, r.body.error.code, r.body.error.details]).toEqual([409, "CAPABILITY_MISSING", { capability: "reward.airdrop", template: "baseline" }]);
    expect((await post(p, baseline.mint, baseline.creator, { lamports: "1000000", mode: "preview" })).body.error.code).toBe("CAPABILITY_MISSING");
    const keyless = await setUp({ keyHeld: false, claimed: SOL });
    const k = await post(p, keyless.mint, keyless.creator, { lamports: "1000000" });
    expect([k.status, k.body.error.code]).toEqual([409, "VAULT_KEY_MISSING"]);
    expect(await rows(keyless.mint)).toEqual({ airdrops: 0, snapshots: 0, batches: 0, spend: 0 });
  });

  test("409 NOT_COVERED beyond the vault's claimed fees, counting what earlier airdrops reserved", async () => {
    const a = await setUp({ claimed: 3_000_000n });
    const over = await post(p, a.mint, a.creator, { lamports: "3000001" });
    expect([over.status, over.body.error.code, over.body.error.details]).toEqual([
      409, "NOT_COVERED", { askedLamports: "3000001", claimedLamports: "3000000", committedLamports: "0", availableLamports: "3000000" },
    ]);
    expect((await post(p, a.mint, a.creator, { lamports: "2000000", ref: "first" })).status).toBe(202);
    const second = await post(p, a.mint, a.creator, { lamports: "1000001", ref: "second" });
    expect([second.status, second.body.error.details.committedLamports, second.body.error.details.availableLamports]).toEqual([409, "2000000", "1000000"]);
    expect((await rows(a.mint)).airdrops).toBe(1);
  });

  test("409 NO_ELIGIBLE_HOLDERS when nobody holds the coin; 503 without a chain configured", async () => {
    const a = await setUp({ holders: [], claimed: SOL });
    const r = await post(p, a.mint, a.creator, { lamports: "1000000" });
    expect([r.status, r.body.error.code]).toEqual([409, "NO_ELIGIBLE_HOLDERS"]);
    const b = await agentWithVault(noChain.engines.sql, { encryptionKey: key, config: CONFIG });
    const n = await post(noChain, b.mint, b.creator, { lamports: "1000000", mode: "preview" });
    expect([n.status, n.body.error.code]).toEqual([503, "UPSTREAM_ERROR"]);
  });
});

describe("preview and execute", () => {
  test("preview: a fresh snapshot, shares pro rata with folding, coverage; nothing moves or is stored", async () => {
    const a = await setUp({ holders: [600n, 300n, 100n], claimed: SOL });
    rpc.setContextSlot(777);
    const sentBefore = rpc.sent.length;
    const r = await post(p, a.mint, a.creator, { lamports: "2000000", mode: "preview" });
    expect(r.status).toBe(200);
    const [big, mid] = [...a.holders.keys()];
    // 2,000,000 x 600/1000 = 1.2M, 300 -> 0.6M, 100 -> 0.2M: both smaller ones fold; 600/600 -> all to the biggest
    expect(r.body).toMatchObject({
      mode: "preview",
      lamports: "2000000",
      minimumPayoutLamports: "890880",
      snapshot: { slot: 777, holders: 3, totalAtoms: "1000" },
      recipients: 1,
      folded: { holders: 2, atoms: "400" },
      shares: [{ owner: big, balance: "600", lamports: "2000000" }],
      vault: { claimedLamports: "1000000000", committedLamports: "0", availableLamports: "1000000000" },
      covered: true,
    });
    expect(mid).toBeDefined();
    expect(rpc.sent.length).toBe(sentBefore);
    expect(await rows(a.mint)).toEqual({ airdrops: 0, snapshots: 0, batches: 0, spend: 0 });
    const uncovered = await post(p, a.mint, a.creator, { lamports: String(2n * SOL), mode: "preview" });
    expect([uncovered.status, uncovered.body.covered]).toEqual([200, false]);
  });

  test("execute: 202 { ref, queued }; the same ref answers the same and pays once; another body with it is 409 REF_REUSED", async () => {
    const a = await setUp({ claimed: SOL });
    const first = await post(p, a.mint, a.creator, { lamports: "5000000", ref: "drop-1" });
    expect([first.status, first.body]).toEqual([202, { ref: "drop-1", queued: true }]);
    const again = await post(p, a.mint, a.creator, { lamports: "5000000", ref: "drop-1", mode: "execute" });
    expect([again.status, again.body]).toEqual([202, { ref: "drop-1", queued: true }]);
    const reused = await post(p, a.mint, a.creator, { lamports: "6000000", ref: "drop-1" });
    expect([reused.status, reused.body.error.code]).toEqual([409, "REF_REUSED"]);
    const generated = await post(p, a.mint, a.creator, { lamports: "1000000" });
    expect(generated.status).toBe(202);
    expect(generated.body.ref).toMatch(/^airdrop-/);
    expect(await rows(a.mint)).toEqual({ airdrops: 2, snapshots: 2, batches: 2, spend: 2 });
    await payAll(a.mint);
    const paid = await paidOnChain(rpc, a.vault.publicKey.toBase58());
    expect(paid.total).toBe(6_000_000n);
    // after paying, the ref still answers the same and nothing more is paid
    expect((await post(p, a.mint, a.creator, { lamports: "5000000", ref: "drop-1" })).body).toEqual({ ref: "drop-1", queued: true });
    await payAll(a.mint);
    expect((await paidOnChain(rpc, a.vault.publicKey.toBase58())).total).toBe(6_000_000n);
  });

  test("45 holders in 3 batches of transfers signed by the vault, each paid its share to the lamport; list, snapshot, feed item, spend settled", async () => {
    const balances = Array.from({ length: 45 }, (_, i) => BigInt(1_000 + i * 37));
    const a = await setUp({ holders: balances, claimed: 2n * SOL });
    rpc.setContextSlot(9001);
    const r = await post(p, a.mint, a.creator, { lamports: "1999999999", ref: "big" });
    expect(r.status).toBe(202);
    await payAll(a.mint);
    const total = balances.reduce((s, b) => s + b, 0n);
    const paid = await paidOnChain(rpc, a.vault.publicKey.toBase58());
    expect(paid.transactions).toBe(3);
    expect(paid.total).toBe(1_999_999_999n);
    for (const [owner, balance] of a.holders) {
      const exact = (1_999_999_999n * balance) / total; // floor; rounding adds at most 1
      const got = paid.byRecipient.get(owner)!;
      expect(got - exact === 0n || got - exact === 1n).toBe(true);
    }
    const list = await p.call(`/v1/daemons/${a.mint}/airdrops`);
    expect(list.status).toBe(200);
    const item = list.body.items[0];
    expect(item).toMatchObject({ ref: "big", status: "paid", lamports: "1999999999", paidLamports: "1999999999", recipients: 45, requestedBy: "operator", snapshot: { slot: 9001, holders: 45 } });
    expect(item.batches.map((b: any) => [b.seq, b.status, b.transfers, b.transactions.length])).toEqual([[0, "confirmed", 20, 1], [1, "confirmed", 20, 1], [2, "confirmed", 5, 1]]);
    expect(item.batches.map((b: any) => b.lamports).reduce((s: bigint, l: string) => s + BigInt(l), 0n)).toBe(1_999_999_999n);
    const snap = await p.call(`/v1/daemons/${a.mint}/airdrops/${item.id}/snapshot`);
    expect(snap.body.entries.length).toBe(45);
    const lines = [...snap.body.entries].map((e: any) => `${e.owner}:${e.amount}\n`).join("");
    expect(snap.body.snapshotHash).toBe(createHash("sha256").update(lines).digest("hex"));
    expect(snap.body.snapshotHash).toBe(item.snapshot.snapshotHash);
    expect((await p.call(`/v1/daemons/${a.mint}/airdrops/999999999/snapshot`)).status).toBe(404);
    // the feed item / activity row, with every signature
    const [act] = await p.engines.ch.query<{ kind: string; text: string; data: string; links: string }>("SELECT kind, text, data, links FROM activity WHERE mint = {m:String} AND kind = 'airdrop'", { m: a.mint });
    expect(act!.text).toBe("Airdropped 1.999999999 SOL to 45 holders.");
    expect(JSON.parse(act!.links).signatures).toEqual(item.batches.map((b: any) => b.signature));
    expect(JSON.parse(act!.data)).toMatchObject({ paidLamports: "1999999999", recipients: 45, snapshotSlot: 9001 });
    const feed = await p.call(`/v1/daemons/${a.mint}/feed?kinds=airdrop`);
    expect(feed.body.items.map((i: any) => [i.kind, i.links.signatures.length, i.data.paidLamports])).toEqual([["airdrop", 3, "1999999999"]]);
    const activity = await p.call(`/v1/public/agents/${a.mint}/activity?kinds=airdrop`);
    expect(activity.body.items.map((i: any) => [i.kind, i.text])).toEqual([["airdrop", "Airdropped 1.999999999 SOL to 45 holders."]]);
    const [spend] = await sql()<{ status: string; spent_lamports: bigint }[]>`SELECT status, spent_lamports FROM vault_spend WHERE mint = ${a.mint}`;
    expect([spend!.status, BigInt(spend!.spent_lamports)]).toEqual(["settled", 1_999_999_999n]);
    const stdout = await sql()<{ body: string }[]>`SELECT body FROM daemon_stdout WHERE mint = ${a.mint} ORDER BY id`;
    expect(stdout.map((l) => l.body)).toEqual([
      "Airdrop of 1.999999999 SOL to 45 holder(s) queued (snapshot at slot 9001, ref big).",
      "Airdrop big paid: 1.999999999 of 1.999999999 SOL.",
    ]);
  });

  test("the list is newest first, paged by cursor; unknown agent 404; the vault's room comes back for what a failed airdrop did not pay", async () => {
    const a = await setUp({ claimed: 3_000_000n });
    rpc.setConfirmMode("fail");
    expect((await post(p, a.mint, a.creator, { lamports: "3000000", ref: "fails" })).status).toBe(202);
    await payAll(a.mint);
    rpc.setConfirmMode("immediate");
    expect((await post(p, a.mint, a.creator, { lamports: "3000000", ref: "after" })).status).toBe(202);
    const page1 = await p.call(`/v1/daemons/${a.mint}/airdrops?limit=1`);
    expect(page1.body.items.map((i: any) => i.ref)).toEqual(["after"]);
    const page2 = await p.call(`/v1/daemons/${a.mint}/airdrops?limit=1&cursor=${page1.body.nextCursor}`);
    expect([page2.body.items.map((i: any) => [i.ref, i.status, i.paidLamports]), page2.body.nextCursor]).toEqual([[["fails", "failed", "0"]], null]);
    expect((await p.call(`/v1/daemons/${newAddress()}/airdrops`)).status).toBe(404);
    expect((await p.call(`/v1/daemons/${a.mint}/airdrops?limit=0`)).status).toBe(400);
  });
});

describe("the runtime's airdrop proposals", () => {
  const propose = (a: TestAgent, lamports: bigint, o: { approved: boolean; holders?: number }) =>
    createProposal(sql(), a.mint, { kind: "airdrop", payload: { lamports: lamports.toString(), holders: o.holders ?? 1000, note: "", cycle: 1 }, expiresAt: new Date(Date.now() + 3_600_000), approvedBy: o.approved ? "agent" : undefined });

  test("approved (autonomous, within limits): executed once through the same service, top holders only; waiting ones are not", async () => {
    const a = await setUp({ holders: [500n, 300n, 200n], claimed: SOL });
    const waiting = await propose(a, 3_000_000n, { approved: false });
    const approved = await propose(a, 3_000_000n, { approved: true, holders: 2 });
    await payAll(a.mint);
    await runTurn(exec);
    const drops = await sql()<{ ref: string; proposal_id: bigint; requested_by: string; recipients: number; status: string }[]>`SELECT ref, proposal_id, requested_by, recipients, status FROM airdrops WHERE mint = ${a.mint}`;
    expect(drops.map((d) => [d.ref, d.proposal_id, d.requested_by, d.recipients, d.status])).toEqual([[`proposal-${approved.id}`, approved.id, "agent", 2, "paid"]]);
    const [w] = await sql()<{ executed_at: Date | null }[]>`SELECT executed_at FROM daemon_proposals WHERE id = ${waiting.id}`;
    expect(w!.executed_at).toBeNull();
    const [ex] = await sql()<{ execution: Record<string, unknown> }[]>`SELECT execution FROM daemon_proposals WHERE id = ${approved.id}`;
    expect(ex!.execution).toMatchObject({ ref: `proposal-${approved.id}` });
    expect((await paidOnChain(rpc, a.vault.publicKey.toBase58())).total).toBe(3_000_000n);
  });

  test("approved but not covered: refused for good, told on stdout, nothing paid", async () => {
    const a = await setUp({ claimed: 1_000_000n });
    const pr = await propose(a, 2_000_000n, { approved: true });
    await runTurn(exec);
    const [ex] = await sql()<{ execution: Record<string, unknown> }[]>`SELECT execution FROM daemon_proposals WHERE id = ${pr.id}`;
    expect(ex!.execution).toMatchObject({ refused: "NOT_COVERED" });
    const [line] = await sql()<{ kind: string; body: string }[]>`SELECT kind, body FROM daemon_stdout WHERE mint = ${a.mint} ORDER BY id DESC LIMIT 1`;
    expect(line!.kind).toBe("error");
    expect(line!.body).toStartWith(`Proposal ${pr.id} (airdrop) was not run:`);
    expect(await rows(a.mint)).toEqual({ airdrops: 0, snapshots: 0, batches: 0, spend: 0 });
  });
});
