/**
 * Buybacks end to end on the real app, embedded Postgres and chDB, the real payment executor
 * (in-process turns), and the loopback RPC test double serving the real mainnet PoolConfig
 * and VirtualPool (fixtures/) and a DAMM v2 pool built from the real migration event; the
 * double verifies every signature and lands the sends, and a test double of the programs
 * (testing/program-effects.ts) says what each landed transaction did. Sign-in is a test
 * authenticator reading a header.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { registryWith, testPlatform } from "../../../compose/testing/platform";
import { treasuryBuilders, treasuryOwners } from "../../../compose/treasury";
import type { Authenticate } from "../../../api/daemons/operator";
import { createProposal } from "../../../api/daemons/store";
import { DBC_CONFIG_BYTES, DBC_POOL_BYTES, dammV2PoolBytes, dbcPoolWith } from "../../../api/pools/testdata";
import { decodePoolConfig, decodeVirtualPool } from "../../../ingest/decoders/accounts";
import { DBC_PROGRAM, startRpcTestDouble } from "../../../infra/testing/rpc-double";
import { createSolanaRpc } from "../../../infra/solana-rpc";
import { createLaunchChain } from "../../../infra/solana-tx/chain";
import { createLogger } from "../../../infra/log";
import { runTurn, type ExecutorDeps } from "../executor";
import { batchesOf } from "../batches";
import { agentWithVault, claimedFees, testVaultEncryptionKey, type TestAgent } from "../testing/agents";
import { programEffectsTestDouble, programState } from "../testing/program-effects";

const addr = () => Keypair.generate().publicKey.toBase58();
const CP_AMM = "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG";
/** the config the fixture pool names (the DBC SDK's swap reads it from the pool) */
const CONFIG = decodeVirtualPool(DBC_POOL_BYTES).pool_state.config.toBase58();
const key = testVaultEncryptionKey();
const SOL = 1_000_000_000n;
const EXTRA_OUT = 1_234n;

const testWalletHeaderAuthenticator: Authenticate = async (request) => {
  const wallet = request.headers.get("x-test-wallet");
  return wallet ? { address: wallet } : null;
};

let rpc: ReturnType<typeof startRpcTestDouble>;
let p: Awaited<ReturnType<typeof testPlatform>>;
let exec: ExecutorDeps;
const state = programState();
let threshold: bigint;

beforeAll(async () => {
  threshold = BigInt(decodePoolConfig(DBC_CONFIG_BYTES).migration_quote_threshold.toString());
  rpc = startRpcTestDouble(new Map([[CONFIG, { lamports: 10_000_000, data: DBC_CONFIG_BYTES, owner: DBC_PROGRAM }]]));
  rpc.setClockTime(1_763_900_000);
  state.swapOut = (_pool, _in, minOut) => minOut + EXTRA_OUT;
  rpc.setLandedEffects(programEffectsTestDouble(state));
  const configs = registryWith([{ role: "launch", address: CONFIG }]);
  p = await testPlatform(configs, { env: { SOLANA_RPC_URL: rpc.url }, authenticate: testWalletHeaderAuthenticator });
  const solana = createSolanaRpc(rpc.url);
  const log = createLogger("error");
  const engines = { sql: p.engines.sql, ch: p.engines.ch };
  exec = {
    sql: engines.sql,
    chain: createLaunchChain(solana.connection),
    connection: solana.connection,
    builders: treasuryBuilders({ sql: engines.sql, configs, log }),
    owners: treasuryOwners({ ...engines, log, rpc: solana, configs, split: { vault: 70, creator: 15, platformBurn: 15 } }),
    signers: { sql: engines.sql, vaultEncryptionKey: key },
    log,
    options: { intervalMs: 50, leaseSeconds: 30, pollSeconds: 0, retrySeconds: 0, batchesPerTurn: 50 },
  };
});
afterAll(() => rpc?.stop());

/** A platform coin with a sealed vault key and `claimed` lamports of claimed fees, on the curve (or full, or graduated). */
async function coin(o: { claimed?: bigint; pool?: "curve" | "full" | "damm"; sealed?: boolean } = {}): Promise<TestAgent & { pool: string }> {
  const a = await agentWithVault(p.engines.sql, { encryptionKey: o.sealed === false ? null : key, config: CONFIG });
  const dbcPool = addr();
  const bytes = await dbcPoolWith({ baseMint: a.mint, ...(o.pool === "full" ? { quoteReserve: threshold } : {}) });
  rpc.setAccount(dbcPool, { lamports: 10_000_000, data: bytes, owner: DBC_PROGRAM });
  await p.engines.sql`UPDATE agents SET dbc_pool = ${dbcPool}, status = 'active' WHERE mint = ${a.mint}`;
  await p.engines.sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${dbcPool}, ${a.mint}, 'dbc', ${CONFIG})`;
  let pool = dbcPool;
  if (o.pool === "damm") {
    pool = addr();
    rpc.setAccount(pool, { lamports: 10_000_000, data: (await dammV2PoolBytes(a.mint)).bytes, owner: CP_AMM });
    await p.engines.sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${pool}, ${a.mint}, 'damm_v2', ${CONFIG})`;
  }
  if (o.claimed) await claimedFees(p.engines.ch, a.mint, a.vault.publicKey.toBase58(), o.claimed);
  return { ...a, pool };
}

const as = (wallet: string | null, method = "GET", body?: unknown): RequestInit => ({
  method,
  headers: { ...(wallet ? { "x-test-wallet": wallet } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
  ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
});
const post = (a: TestAgent, body: unknown, wallet: string | null = a.creator) => p.call(`/v1/daemons/${a.mint}/buybacks`, as(wallet, "POST", body));
const list = async (a: TestAgent) => (await p.call(`/v1/daemons/${a.mint}/buybacks`)).body.items as any[];

/** executor turns until every batch of the buyback is settled */
async function drain(id: string, max = 20) {
  for (let i = 0; i < max; i++) {
    await runTurn(exec);
    const [b] = await p.engines.sql<{ status: string }[]>`SELECT status FROM buybacks WHERE id = ${id}`;
    if (["done", "failed", "expired"].includes(b!.status)) return;
  }
  throw new Error(`buyback ${id} still open after ${max} turns`);
}
const idOf = async (a: TestAgent, ref: string) => (await p.engines.sql<{ id: bigint }[]>`SELECT id FROM buybacks WHERE mint = ${a.mint} AND ref = ${ref}`)[0]!.id.toString();
const spend = async (a: TestAgent) => p.engines.sql<{ status: string; reserved_lamports: bigint; spent_lamports: bigint }[]>`SELECT status, reserved_lamports, spent_lamports FROM vault_spend WHERE mint = ${a.mint} ORDER BY id`;

describe("POST /v1/daemons/:mint/buybacks: refusals", () => {
  test("sign-in (401), another wallet (403), unknown agent (404), then every body problem at once (400)", async () => {
    const a = await coin({ claimed: SOL });
    expect((await post(a, { lamports: "1000" }, null)).status).toBe(401);
    const other = await post(a, { lamports: "1000" }, addr());
    expect([other.status, other.body.error.code]).toEqual([403, "NOT_OPERATOR"]);
    expect((await p.call(`/v1/daemons/${addr()}/buybacks`, as(a.creator, "POST", { lamports: "1000" }))).status).toBe(404);
    const bad = await post(a, { lamports: "500000001", slippageBps: 10_001, burn: "yes", ref: "no spaces allowed", extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(["burn", "extra", "lamports", "ref", "slippageBps"]);
    for (const [body, field] of [[{}, "lamports"], [{ lamports: "0" }, "lamports"], [{ lamports: -5 }, "lamports"], [{ lamports: "1.5" }, "lamports"], [{ lamports: 1e20 }, "lamports"], [{ lamports: "9", slippageBps: 1.5 }, "slippageBps"], [{ lamports: "9", ref: "" }, "ref"]] as const) {
      const r = await post(a, body);
      expect([r.status, r.body.error.details.map((d: { field: string }) => d.field)], JSON.stringify(body)).toEqual([400, [field]]);
    }
    const notObject = await post(a, "[1]");
    expect([notObject.status, notObject.body.error.details[0].field]).toEqual([400, "body"]);
    // the cap itself is fine: 0.5 SOL exactly
    expect((await post(a, { lamports: "500000000" })).status).toBe(202);
  });

  test("not covered by the vault's claimed fees: 409 NOT_COVERED with the figures, and nothing written", async () => {
    const a = await coin({ claimed: 100_000_000n });
    const r = await post(a, { lamports: "100000001", ref: "too-much" });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("NOT_COVERED");
    expect(r.body.error.details).toEqual({ askedLamports: "100000001", claimedLamports: "100000000", committedLamports: "0", availableLamports: "100000000" });
    expect(await list(a)).toEqual([]);
    expect([...(await spend(a))]).toEqual([]);
    expect(await batchesOf(p.engines.sql, "buyback", [])).toEqual([]);
    // what is reserved counts: two buybacks of 60 % do not both fit
    expect((await post(a, { lamports: "60000000" })).status).toBe(202);
    const second = await post(a, { lamports: "60000000" });
    expect([second.status, second.body.error.details.committedLamports]).toEqual([409, "60000000"]);
  });

  test("a full curve waiting to migrate: 409 CURVE_COMPLETE; an agent whose vault key the platform does not hold: 409 VAULT_KEY_MISSING", async () => {
    const full = await coin({ claimed: SOL, pool: "full" });
    const r = await post(full, { lamports: "1000000" });
    expect([r.status, r.body.error.code]).toEqual([409, "CURVE_COMPLETE"]);
    const unsealed = await coin({ claimed: SOL, sealed: false });
    const u = await post(unsealed, { lamports: "1000000" });
    expect([u.status, u.body.error.code]).toEqual([409, "VAULT_KEY_MISSING"]);
    expect(await list(full)).toEqual([]);
  });
});

describe("a buyback carried out", () => {
  test("on the curve, with burn: ref idempotent, the vault's swap then the burn of exactly what it received, the record, the spend, the feed item", async () => {
    const a = await coin({ claimed: SOL });
    const body = { lamports: "100000000", slippageBps: 250, burn: true, ref: "op-1" };
    const first = await post(a, body);
    expect([first.status, first.body]).toEqual([202, { ref: "op-1", queued: true }]);
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    // the same request again: the same answer, nothing more queued; another request with its ref: 409
    expect((await post(a, body)).body).toEqual({ ref: "op-1", queued: false });
    const reused = await post(a, { ...body, lamports: "100000001" });
    expect([reused.status, reused.body.error.code]).toEqual([409, "REF_REUSED"]);
    expect((await spend(a)).map((s) => [s.status, s.reserved_lamports])).toEqual([["reserved", 100_000_000n]]);

    const id = await idOf(a, "op-1");
    expect((await list(a))[0]).toMatchObject({ id, ref: "op-1", status: "queued", lamports: "100000000", slippageBps: 250, burn: true, transaction: null, requestedBy: "operator" });
    await drain(id);
    const [b] = await list(a);
    const batches = await batchesOf(p.engines.sql, "buyback", [id]);
    expect(batches.map((x) => [x.builder, x.status, x.payer])).toEqual([
      ["buyback.swap", "confirmed", a.vault.publicKey.toBase58()],
      ["buyback.burn", "confirmed", a.vault.publicKey.toBase58()],
    ]);
    const minOut = BigInt(batches[0]!.result!.minimumOut as string);
    expect(b).toMatchObject({
      id, status: "done", venue: "dbc", pool: a.pool, transaction: batches[0]!.signature, burnTransaction: batches[1]!.signature,
      minimumOut: minOut.toString(), tokensReceived: (minOut + EXTRA_OUT).toString(), tokensBurned: (minOut + EXTRA_OUT).toString(), error: null,
    });
    expect(b.completedAt).not.toBeNull();
    // the burn burned what the swap received, from the vault's own account
    expect(batches[1]!.params).toMatchObject({ mint: a.mint, amount: (minOut + EXTRA_OUT).toString(), decimals: 6 });
    // one swap and one burn went out, each signed by the vault (the double verifies signatures)
    expect(new Set(rpc.sent.filter((s) => s.signature === b.transaction || s.signature === b.burnTransaction).map((s) => s.signature)).size).toBe(2);
    expect((await spend(a)).map((s) => [s.status, s.spent_lamports])).toEqual([["settled", 100_000_000n]]);
    // the feed and the Data API's activity carry it, with the transactions
    const feed = await p.call(`/v1/daemons/${a.mint}/feed?kinds=buyback`);
    expect(feed.body.items).toHaveLength(1);
    expect(feed.body.items[0]).toMatchObject({ id: `buyback:${a.mint}:${id}`, kind: "buyback", mint: a.mint, links: { signature: b.transaction, signatures: [b.transaction, b.burnTransaction] } });
    expect(feed.body.items[0].data).toMatchObject({ lamports: "100000000", venue: "dbc", tokensReceived: b.tokensReceived, tokensBurned: b.tokensBurned });
    const activity = await p.call(`/v1/public/agents/${a.mint}/activity?kinds=buyback`);
    expect(activity.body.items.map((i: { id: string }) => i.id)).toEqual([`buyback:${a.mint}:${id}`]);
    // stdout told each step
    const lines = await p.engines.sql<{ body: string }[]>`SELECT body FROM daemon_stdout WHERE mint = ${a.mint} ORDER BY id`;
    expect(lines.map((l) => l.body)).toEqual([
      "A buyback of 0.1 SOL, burning what it buys, was queued for the operator.",
      expect.stringMatching(/^Bought back and burned [\d.]+ \$CN for 0\.1 SOL\.$/),
    ]);
  });

  test("after migration, on DAMM v2, without burn: venue damm_v2, nothing burned", async () => {
    const a = await coin({ claimed: SOL, pool: "damm" });
    expect((await post(a, { lamports: "250000000", ref: "damm" })).status).toBe(202);
    const id = await idOf(a, "damm");
    await drain(id);
    const [b] = await list(a);
    expect(b).toMatchObject({ status: "done", venue: "damm_v2", pool: a.pool, burn: false, burnTransaction: null, tokensBurned: null });
    expect(BigInt(b.tokensReceived)).toBe(BigInt(b.minimumOut) + EXTRA_OUT);
    expect((await batchesOf(p.engines.sql, "buyback", [id])).map((x) => x.builder)).toEqual(["buyback.swap"]);
  });

  test("a swap that fails on-chain: failed, the reservation released (the room is back), no feed item", async () => {
    const a = await coin({ claimed: 200_000_000n });
    rpc.setConfirmMode("fail");
    try {
      expect((await post(a, { lamports: "150000000", ref: "slip" })).status).toBe(202);
      await drain(await idOf(a, "slip"));
    } finally {
      rpc.setConfirmMode("immediate");
    }
    const [b] = await list(a);
    expect(b).toMatchObject({ status: "failed", transaction: null, tokensReceived: null });
    expect(b.error).toContain("failed on-chain");
    expect((await spend(a)).map((s) => s.status)).toEqual(["released"]);
    expect((await post(a, { lamports: "200000000", ref: "again" })).status).toBe(202);
    expect((await p.call(`/v1/daemons/${a.mint}/feed?kinds=buyback`)).body.items).toEqual([]);
  });

  test("an approved buyback proposal runs through the same service once: ref proposal-<id>, burns, requested by the agent", async () => {
    const a = await coin({ claimed: SOL });
    const prop = await createProposal(p.engines.sql, a.mint, { kind: "buyback", payload: { lamports: "20000000", note: "", cycle: 1 }, expiresAt: new Date(Date.now() + 3_600_000), approvedBy: a.creator });
    const over = await createProposal(p.engines.sql, a.mint, { kind: "buyback", payload: { lamports: "2000000000" }, expiresAt: new Date(Date.now() + 3_600_000), approvedBy: a.creator });
    await createProposal(p.engines.sql, a.mint, { kind: "buyback", payload: { lamports: "a lot" }, expiresAt: new Date(Date.now() + 3_600_000), approvedBy: a.creator });
    await runTurn(exec);
    await runTurn(exec); // a second turn takes nothing more
    const rows = await p.engines.sql<{ id: bigint; ref: string; proposal_id: bigint; burn: boolean; requested_by: string }[]>`SELECT id, ref, proposal_id, burn, requested_by FROM buybacks WHERE mint = ${a.mint}`;
    expect(rows.map((r) => [r.ref, r.proposal_id, r.burn, r.requested_by])).toEqual([[`proposal-${prop.id}`, prop.id, true, "agent"]]);
    await drain(rows[0]!.id.toString());
    expect((await list(a))[0]).toMatchObject({ status: "done", requestedBy: "agent", proposalId: prop.id.toString() });
    const executed = await p.engines.sql<{ id: bigint; execution: any }[]>`SELECT id, execution FROM daemon_proposals WHERE mint = ${a.mint} ORDER BY id`;
    expect(executed[0]!.execution).toEqual({ buybackId: rows[0]!.id.toString(), ref: `proposal-${prop.id}` });
    expect(executed[1]!.execution).toMatchObject({ refused: "VALIDATION_ERROR" });
    expect(over.id).toBe(executed[1]!.id);
    expect(executed[2]!.execution).toEqual({ refused: "INVALID_PROPOSAL", message: "its amount is not valid" });
    const told = await p.engines.sql<{ kind: string; body: string }[]>`SELECT kind, body FROM daemon_stdout WHERE mint = ${a.mint} AND meta->>'change' = 'proposal.executed' ORDER BY id`;
    expect(told.map((l) => [l.kind, l.body])).toEqual([
      ["error", expect.stringMatching(new RegExp(`^Proposal ${over.id} \\(buyback\\) was not run: 1 problem with the request: lamports: a buyback is 1 to 500000000 lamports`))],
      ["error", `Proposal ${executed[2]!.id} (buyback) was not run: its amount is not valid.`],
    ]);
  });
});

describe("GET /v1/daemons/:mint/buybacks", () => {
  test("newest first, paged by cursor; public (no sign-in), any origin; 404 for an unknown agent; bad query: 400", async () => {
    const a = await coin({ claimed: SOL });
    for (const ref of ["a", "b", "c"]) expect((await post(a, { lamports: "1000000", ref })).status).toBe(202);
    const page1 = await p.call(`/v1/daemons/${a.mint}/buybacks?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.headers.get("access-control-allow-origin")).toBe("*");
    expect(page1.body.items.map((i: { ref: string }) => i.ref)).toEqual(["c", "b"]);
    const page2 = await p.call(`/v1/daemons/${a.mint}/buybacks?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toMatchObject({ nextCursor: null });
    expect(page2.body.items.map((i: { ref: string }) => i.ref)).toEqual(["a"]);
    expect((await p.call(`/v1/daemons/${addr()}/buybacks`)).status).toBe(404);
    // a browser's preflight before the operator's POST
    const pre = await p.call(`/v1/daemons/${a.mint}/buybacks`, { method: "OPTIONS" });
    expect([pre.status, pre.headers.get("access-control-allow-origin"), pre.headers.get("access-control-allow-headers")]).toEqual([204, "*", "authorization, content-type"]);
    const bad = await p.call(`/v1/daemons/not-a-mint/buybacks?limit=0&cursor=x`);
    expect([bad.status, bad.body.error.details.map((d: { field: string }) => d.field).sort()]).toEqual([400, ["cursor", "limit", "mint"]]);
  });
});
