/**
 * The OpenAPI document against the running app (real engines, the devnet fixtures, the
 * loopback RPC and image-host test doubles, a real Launch API key and a real wallet
 * sign-in): every route the app serves is documented and every documented operation is
 * served; and every operation answers, at least once with success and once with an error,
 * exactly as documented (status, content type, JSON body against its schema with Ajv).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import { TOKEN_PROGRAM_ID } from "@solana/spl-token";
import bs58 from "bs58";
import { launchTestPlatform, LAUNCH_CONFIG, newIdempotencyKey, signAsCreator } from "../../compose/testing/launch";
import { FIXTURES } from "../../compose/testing/platform";
import { FIXTURE_MINT as MINT, overNetwork } from "../../compose/testing/data-api";
import { bearer, signIn, testWallet } from "../../compose/testing/sign-in";
import { DBC_PROGRAM, tokenAccount } from "../../infra/testing/rpc-double";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { createLogger } from "../../infra/log";
import { DBC_POOL_BYTES, dbcPoolWith } from "../pools/testdata";
import { appendStdout, createProposal, recordSpend } from "../daemons/store";
import { contestAgent, contestBody } from "../../compose/testing/contests";
import { contestJobDeps } from "../../compose/contests";
import { runContestsOnce } from "../../agents/contests/job";
import { SEED_SLOT_DELAY } from "../../agents/contests/seed-block";
import { confirmPrizeBatches } from "../../agents/contests/testing/prizes";
import { publishContests } from "../../agents/contests/publish";
import { publishAirdrops } from "../../agents/treasury/airdrops/settle";
import { loadFirewall } from "../firewall/firewall";
import { treasuryOwners } from "../../compose/treasury";
import { landBatchesOf } from "../../agents/treasury/testing/ledger";
import { conformance } from "./conformance";
import { platformOpenApi } from "./index";

const doc = platformOpenApi();
const contract = conformance(doc);

/** Routes the app serves that are not API operations: health, metrics, the document and its page, the websocket. */
const NOT_OPERATIONS = ["GET /healthz", "GET /readyz", "GET /metrics", "GET /v1/openapi.json", "GET /docs", "GET /docs/init.js", "GET /docs/assets/:file", "WS /v1/ws", "GET /dashboard", "GET /dashboard/assets/:name"];

const addr = () => Keypair.generate().publicKey.toBase58();
const UNKNOWN = addr();

let p: Awaited<ReturnType<typeof launchTestPlatform>>;
type Answer = { status: number; headers: Headers; body: any };

/** Calls the app and checks the answer against the document; returns it for the test to go on. */
async function call(operationId: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await p.app.handle(new Request(`http://local${path}`, init));
  const text = await res.text();
  let body: any = text;
  if ((res.headers.get("content-type") ?? "").startsWith("application/json")) body = JSON.parse(text);
  const answer = { status: res.status, headers: res.headers, body };
  expect({ operationId, path, problems: contract.check(operationId, answer) }).toEqual({ operationId, path, problems: [] });
  return answer;
}

const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});
const key = () => ({ authorization: `Bearer ${p.key}` });

/** Signs `wallet` in through the app (both calls checked against the document); its access token's header. */
const signedIn = async (wallet = testWallet()) =>
  bearer((await signIn((path, init) => call(path === "/v1/auth/nonce" ? "createSignInNonce" : "verifySignIn", path, init), wallet)).accessToken);

/**
 * A signed-in operator and its agent, which treasury actions can pay from: the platform holds its vault's key and
 * the vault claimed 2 SOL of fees (compose/testing/contests.ts); `as` is the operator's Authorization header.
 */
async function treasuryOperator() {
  const wallet = testWallet();
  const agent = await contestAgent(p.engines.sql, p.engines.ch, { config: LAUNCH_CONFIG, creator: wallet.address });
  return { ...agent, as: await signedIn(wallet) };
}

/** Gives the agent `mint` a DBC pool on the RPC test double (`bytes`: the pool account), where it trades now. */
async function poolOnCurve(mint: string, bytes: Uint8Array) {
  const pool = addr();
  p.rpc.setAccount(pool, { lamports: 10_000_000, data: bytes, owner: DBC_PROGRAM });
  await p.engines.sql`UPDATE agents SET dbc_pool = ${pool} WHERE mint = ${mint}`;
  await p.engines.sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${pool}, ${mint}, 'dbc', ${LAUNCH_CONFIG})`;
  return pool;
}

beforeAll(async () => {
  p = await launchTestPlatform();
  const fixtures = readdirSync(`${FIXTURES}helius-devnet`).map((name) => JSON.parse(readFileSync(`${FIXTURES}helius-devnet/${name}`, "utf8")));
  expect((await p.postWebhook(fixtures)).status).toBe(200);
});

afterAll(() => p?.stop());

describe("every route is in the document", () => {
  test("each route the app serves is a documented operation, and each operation is served", () => {
    const served = (p.app.routes as { method: string; path: string }[]).map((r) => `${r.method} ${r.path}`);
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
    );
    expect(served.filter((r) => !documented.includes(r) && !NOT_OPERATIONS.includes(r))).toEqual([]);
    expect(documented.filter((r) => !served.includes(r))).toEqual([]);
  });
});

describe("real answers match the document", () => {
  test("the Data API and the trade export", async () => {
    expect((await call("listAgents", "/v1/public/agents?limit=5")).body.items.length).toBeGreaterThan(0);
    await call("listAgents", "/v1/public/agents?limit=0&sort=oldest");
    await call("getAgent", `/v1/public/agents/${MINT}`);
    await call("getAgent", `/v1/public/agents/${UNKNOWN}`);
    expect((await call("listAgentTrades", `/v1/public/agents/${MINT}/trades?limit=3`)).body.items.length).toBeGreaterThan(0);
    await call("listAgentTrades", "/v1/public/agents/not-a-mint/trades");
    await call("listAgentActivity", `/v1/public/agents/${MINT}/activity?kinds=launch,trade`);
    await call("listAgentActivity", `/v1/public/agents/${UNKNOWN}/activity`);
    // the global lists hold other test files' rows too (shared engines): launches only, which come from chain facts
    await call("listActivity", "/v1/public/activity?kinds=launch");
    await call("listActivity", "/v1/public/activity?kinds=gossip");
    await call("getDataStats", "/v1/public/stats");
    await call("getDataSolPrice", "/v1/public/price/sol");
    await call("listConfigs", "/v1/public/configs");
    const file = await call("exportTrades", `/v1/public/exports/trades?mint=${MINT}&format=ndjson`);
    expect(file.headers.get("x-export-until-slot")).toMatch(/^\d+$/);
    await call("exportTrades", `/v1/public/exports/trades?mint=${MINT}&format=csv&to=2100-01-01`);
    await call("exportTrades", "/v1/public/exports/trades?format=xlsx&from=soon");
  });

  test("the Application API's public reads", async () => {
    await call("listTokens", "/v1/tokens?sort=trending&limit=5");
    await call("listTokens", "/v1/tokens?sort=oldest");
    await call("getToken", `/v1/tokens/${MINT}`);
    await call("getToken", `/v1/tokens/${UNKNOWN}`);
    await call("listTokenTrades", `/v1/tokens/${MINT}/trades?limit=2`);
    await call("listTokenTrades", `/v1/tokens/${MINT}/trades?limit=1000`);
    expect((await call("getTokenCandles", `/v1/tokens/${MINT}/candles?interval=1d&from=2024-01-01`)).body.items.length).toBeGreaterThan(0);
    await call("getTokenCandles", `/v1/tokens/${MINT}/candles?interval=2h`);
    await call("getSolPrice", "/v1/price/sol");
    await call("getPlatformStats", "/v1/platform/stats");
    for (const range of ["24h", "all"]) await call("getAnalyticsOverview", `/v1/analytics/overview?range=${range}`);
    await call("getAnalyticsOverview", "/v1/analytics/overview?range=1y");
    await call("getTokenomics", "/v1/tokenomics");
    await call("listFeed", "/v1/feed?kinds=launch");
    await call("listFeed", "/v1/feed?kinds=");
    await call("listDaemonFeed", `/v1/daemons/${MINT}/feed?kinds=trade,launch`);
    await call("listDaemonFeed", `/v1/daemons/${UNKNOWN}/feed`);
  });

  test("live pools and quotes over the RPC test double", async () => {
    const coin = async (poolBytes: Uint8Array) => {
      const mint = addr();
      await p.engines.sql`INSERT INTO agents (mint, creator, vault, config) VALUES (${mint}, ${addr()}, ${addr()}, ${LAUNCH_CONFIG})`;
      await poolOnCurve(mint, poolBytes);
      return mint;
    };
    const onCurve = await coin(DBC_POOL_BYTES);
    const full = await coin(await dbcPoolWith({ quoteReserve: 10n ** 15n }));
    await call("getTokenPool", `/v1/tokens/${onCurve}/pool`);
    await call("getTokenPool", `/v1/tokens/${UNKNOWN}/pool`);
    await call("getTokenQuote", `/v1/tokens/${onCurve}/quote?side=buy&amount=100000000&slippageBps=50`);
    await call("getTokenQuote", `/v1/tokens/${onCurve}/quote?side=hold&amount=-1`);
    expect((await call("getTokenQuote", `/v1/tokens/${full}/quote?side=buy&amount=1000`)).body.error.code).toBe("CURVE_COMPLETE");
  });

  test("wallet sign-in, the signed-in account and the daemon surface", async () => {
    const wallet = testWallet();
    const nonce = await call("createSignInNonce", "/v1/auth/nonce", json("POST", { address: wallet.address }));
    await call("createSignInNonce", "/v1/auth/nonce", json("POST", { address: "x", extra: 1 }));
    await call("verifySignIn", "/v1/auth/verify", json("POST", { message: nonce.body.message, signature: testWallet().sign(nonce.body.message) }));
    const tokens = (await call("verifySignIn", "/v1/auth/verify", json("POST", { message: nonce.body.message, signature: wallet.sign(nonce.body.message) }))).body;
    const refreshed = (await call("refreshSession", "/v1/auth/refresh", json("POST", { refreshToken: tokens.refreshToken }))).body;
    await call("refreshSession", "/v1/auth/refresh", json("POST", { refreshToken: "acp_rt_nope" }));
    const as = bearer(refreshed.accessToken);

    // an agent this wallet launched, awake with fuel, with a line, a spend item and a proposal
    const sql = p.engines.sql;
    const [mint, vault] = [addr(), addr()];
    await sql`INSERT INTO agents (mint, coin_name, symbol, image_url, creator, vault, config, dbc_pool, state, status, name, template, category, presence, traits)
              VALUES (${mint}, 'Contract Coin', 'CTR', 'https://img.example/c.png', ${wallet.address}, ${vault}, ${LAUNCH_CONFIG}, ${addr()}, 'awake', 'active', 'Ada', 'patron', 'rewards', 'influencer', ${sql.json(["bold"])})`;
    await sql`INSERT INTO wallet_balances (address, lamports, usdc_atoms, read_at) VALUES (${vault}, '1000000000', '0', now())`;
    await appendStdout(sql, mint, { kind: "thinking", body: "holders are quiet today", meta: { step: 1 } });
    await recordSpend(sql, mint, { kind: "spend", usdMicros: 1200n, what: "model call" });
    const proposal = await createProposal(sql, mint, { kind: "airdrop", payload: { lamports: "1000" }, expiresAt: new Date(Date.now() + 3_600_000) });

    await call("getMe", "/v1/me", { headers: as });
    await call("getMe", "/v1/me");
    await call("listMyAgents", "/v1/me/agents?limit=5", { headers: as });
    await call("listMyAgents", "/v1/me/agents?limit=0", { headers: as });
    await call("getMyWallet", "/v1/me/wallet", { headers: as });
    await call("getMyWallet", "/v1/me/wallet", { headers: bearer("acp_at_forged") });
    await call("getMyConsole", "/v1/me/console", { headers: as });
    await call("getMyConsole", "/v1/me/console");
    await call("getMyApprovals", "/v1/me/approvals", { headers: as });
    await call("getMyApprovals", "/v1/me/approvals", { headers: bearer(tokens.accessToken) }); // replaced by the refresh

    await call("getDaemonCatalog", "/v1/daemons/catalog");
    await call("getDaemon", `/v1/daemons/${mint}`);
    await call("getDaemon", `/v1/daemons/${UNKNOWN}`);
    await call("listDaemonStdout", `/v1/daemons/${mint}/stdout?limit=10`);
    await call("listDaemonStdout", `/v1/daemons/${mint}/stdout?cursor=abc`);
    const stranger = await signedIn();
    await call("putDaemonPersona", `/v1/daemons/${mint}/persona`, json("PUT", { motto: "hold on", traits: ["bold", "witty"], name: null }, as));
    await call("putDaemonPersona", `/v1/daemons/${mint}/persona`, json("PUT", { motto: "x" }, stranger));
    await call("putDaemonAutonomy", `/v1/daemons/${mint}/autonomy`, json("PUT", { autonomy: "autonomous" }, as));
    await call("putDaemonAutonomy", `/v1/daemons/${mint}/autonomy`, json("PUT", { autonomy: "sometimes" }, as));
    const directive = (await call("addDaemonDirective", `/v1/daemons/${mint}/directives`, json("POST", { kind: "goal", body: "reward the top holders" }, as))).body;
    await call("addDaemonDirective", `/v1/daemons/${mint}/directives`, json("POST", { kind: "wish", body: "" }, as));
    await call("listDaemonDirectives", `/v1/daemons/${mint}/directives`, { headers: as });
    await call("listDaemonDirectives", `/v1/daemons/${UNKNOWN}/directives`, { headers: as });
    await call("archiveDaemonDirective", `/v1/daemons/${mint}/directives/${directive.id}`, { method: "DELETE", headers: as });
    await call("archiveDaemonDirective", `/v1/daemons/${mint}/directives/999999999`, { method: "DELETE", headers: as });
    await call("listDaemonSpend", `/v1/daemons/${mint}/spend`, { headers: as });
    await call("listDaemonSpend", `/v1/daemons/${mint}/spend`);
    await call("checkDaemon", `/v1/daemons/${mint}/check`, { method: "POST", headers: as });
    await call("checkDaemon", `/v1/daemons/${mint}/check`, { method: "POST", headers: as });
    await call("decideDaemonProposal", `/v1/daemons/${mint}/proposals/${proposal.id}/decision`, json("POST", { decision: "approve" }, as));
    await call("decideDaemonProposal", `/v1/daemons/${mint}/proposals/${proposal.id}/decision`, json("POST", { decision: "reject" }, as));

    await call("signOut", "/v1/auth/logout", { method: "POST", headers: as });
    await call("signOut", "/v1/auth/logout", { method: "POST" });
  });

  test("treasury actions: contests, drawn by the contest job over the RPC test double and paid", async () => {
    const a = await treasuryOperator();
    const contests = `/v1/daemons/${a.mint}/contests`;
    for (const amount of [5_000_000n, 70_000_000n, 1_000n]) p.rpc.setAccount(addr(), tokenAccount(a.mint, addr(), amount));
    const raffle = contestBody({ budgetLamports: "150000000", winners: 2, splitBps: [6000, 4000], ref: `contract-${addr()}` });
    const opened = await call("createDaemonContest", contests, json("POST", raffle, a.as));
    expect(opened.body).toEqual({ id: expect.any(String), created: true });
    const code = async (operationId: string, path: string, init: RequestInit = {}) => (await call(operationId, path, init)).body.error.code;
    const refusal = (body: unknown) => code("createDaemonContest", contests, json("POST", body, a.as));
    expect([
      await refusal({ ...raffle, title: "Another raffle" }),
      await refusal(contestBody({ winners: 51, splitBps: [1] })),
      await refusal(contestBody({ title: "Send 1 SOL and get 2 SOL back" })),
      await refusal(contestBody({ budgetLamports: "1900000000", winners: 19 })),
    ]).toEqual(["REF_REUSED", "VALIDATION_ERROR", "FIREWALL_BLOCKED", "NOT_COVERED"]);
    const other = (await call("createDaemonContest", contests, json("POST", contestBody(), a.as))).body.id;
    expect((await call("cancelDaemonContest", `${contests}/${other}/cancel`, { method: "POST", headers: a.as })).body.status).toBe("cancelled");
    expect([
      await code("cancelDaemonContest", `${contests}/${other}/cancel`, { method: "POST" }),
      await code("getDaemonContestSnapshot", `${contests}/${other}/snapshot`), // a cancelled contest has none
      await code("getDaemonContest", `${contests}/999999999`),
      await code("listDaemonContests", `${contests}?limit=0&cursor=x`),
    ]).toEqual(["AUTH_REQUIRED", "NOT_FOUND", "NOT_FOUND", "VALIDATION_ERROR"]);

    // the contest job ends the raffle (snapshot, seed slot), then draws it from the seed block; the prizes are paid
    const job = contestJobDeps(p.engines, p.configs, createSolanaRpc(p.rpc.url), loadFirewall(), createLogger("error"))!;
    await p.engines.sql`UPDATE contests SET ends_at = now() - interval '1 second' WHERE id = ${opened.body.id}`;
    const height = p.rpc.blockHeight();
    try {
      await runContestsOnce(job);
      expect((await call("getDaemonContest", `${contests}/${opened.body.id}`)).body).toMatchObject({ status: "drawing", seed: { blockSlot: null }, proof: null });
      p.rpc.setBlockHeight(height + SEED_SLOT_DELAY);
      await runContestsOnce(job);
    } finally {
      p.rpc.setBlockHeight(height);
    }
    expect(await code("cancelDaemonContest", `${contests}/${opened.body.id}/cancel`, { method: "POST", headers: a.as })).toBe("CONTEST_NOT_OPEN");
    await confirmPrizeBatches(p.engines.sql, opened.body.id, () => bs58.encode(randomBytes(64)));
    const paid = (await call("getDaemonContest", `${contests}/${opened.body.id}`)).body;
    expect(paid).toMatchObject({ status: "paid", proof: { algorithm: "sha256-cumw-v1" }, prizes: [{ payment: { status: "confirmed" } }, { payment: { status: "confirmed" } }] });
    expect((await call("getDaemonContestSnapshot", `${contests}/${opened.body.id}/snapshot`)).body.holders).toBe(3);
    expect((await call("listDaemonContests", `${contests}?limit=5`)).body.items.map((c: { status: string }) => c.status)).toEqual(["cancelled", "paid"]);
    // once its contest_paid item is written, its prizes are one of the overview's recent payouts, with every transaction
    await publishContests(job);
    const recent = (await call("getAnalyticsOverview", "/v1/analytics/overview?range=all")).body.recentPayouts;
    expect(recent.filter((x: { mint: string; kind: string }) => x.mint === a.mint && x.kind === "contest_prize")).toEqual([
      expect.objectContaining({ lamports: "150000000", signatures: [expect.any(String)] }),
    ]);
  });

  test("treasury actions: airdrops and buybacks, their batches landed through the payment ledger", async () => {
    const a = await treasuryOperator();
    // an agent of another operator with no holders and a full curve: nobody to airdrop to, nothing to buy
    const idle = await treasuryOperator();
    const code = async (operationId: string, path: string, init: RequestInit = {}) => (await call(operationId, path, init)).body.error.code;
    const owners = treasuryOwners({ ...p.engines, log: createLogger("error"), rpc: null, configs: p.configs, split: p.config.tokenomics.split });

    const airdrops = `/v1/daemons/${a.mint}/airdrops`;
    for (const amount of [9_000_000n, 3_000_000n, 500n]) p.rpc.setAccount(addr(), tokenAccount(a.mint, addr(), amount));
    const preview = (await call("createDaemonAirdrop", airdrops, json("POST", { lamports: "40000000", mode: "preview" }, a.as))).body;
    expect(preview).toMatchObject({ mode: "preview", recipients: 2, folded: { holders: 1, atoms: "500" }, covered: true });
    const drop = { lamports: "40000000", ref: `contract-${addr()}` };
    expect((await call("createDaemonAirdrop", airdrops, json("POST", drop, a.as))).body).toEqual({ ref: drop.ref, queued: true });
    expect([
      await code("createDaemonAirdrop", airdrops, json("POST", { ...drop, lamports: "50000000" }, a.as)),
      await code("createDaemonAirdrop", airdrops, json("POST", { lamports: "2000000001", mode: "now" }, a.as)),
      await code("createDaemonAirdrop", airdrops, json("POST", { lamports: "2000000000" }, a.as)),
      await code("createDaemonAirdrop", `/v1/daemons/${idle.mint}/airdrops`, json("POST", { lamports: "40000000" }, idle.as)),
      await code("createDaemonAirdrop", `/v1/daemons/${idle.mint}/airdrops`, json("POST", { lamports: "40000000" }, a.as)),
    ]).toEqual(["REF_REUSED", "VALIDATION_ERROR", "NOT_COVERED", "NO_ELIGIBLE_HOLDERS", "NOT_OPERATOR"]);
    const [queued] = (await call("listDaemonAirdrops", `${airdrops}?limit=5`)).body.items;
    expect(queued).toMatchObject({ ref: drop.ref, status: "paying", batches: [{ status: "queued", transfers: 2, transactions: [] }] });
    await landBatchesOf(p.engines.sql, owners, { kind: "airdrop", id: queued.id });
    const [paid] = (await call("listDaemonAirdrops", `${airdrops}?limit=5`)).body.items;
    expect(paid).toMatchObject({ status: "paid", paidLamports: "40000000", batches: [{ status: "confirmed", transactions: [{ attempt: 1, status: "confirmed" }] }] });
    expect((await call("getDaemonAirdropSnapshot", `${airdrops}/${paid.id}/snapshot`)).body).toMatchObject({ id: paid.snapshot.id, holders: 3 });
    // published (its feed item written), the airdrop is one of the overview's recent payouts
    await publishAirdrops(p.engines);
    const recent = (await call("getAnalyticsOverview", "/v1/analytics/overview?range=all")).body.recentPayouts;
    expect(recent.filter((x: { mint: string; kind: string }) => x.mint === a.mint && x.kind === "airdrop")).toEqual([
      expect.objectContaining({ lamports: "40000000", signature: paid.batches[0].signature, signatures: [paid.batches[0].signature] }),
    ]);
    expect([
      await code("getDaemonAirdropSnapshot", `${airdrops}/999999999/snapshot`),
      await code("listDaemonAirdrops", `${airdrops}?limit=0&cursor=x`),
    ]).toEqual(["NOT_FOUND", "VALIDATION_ERROR"]);

    const buybacks = `/v1/daemons/${a.mint}/buybacks`;
    const pool = await poolOnCurve(a.mint, await dbcPoolWith({ baseMint: a.mint }));
    await poolOnCurve(idle.mint, await dbcPoolWith({ baseMint: idle.mint, quoteReserve: 10n ** 15n }));
    const buyback = { lamports: "100000000", burn: true, ref: `contract-${addr()}` };
    expect((await call("createDaemonBuyback", buybacks, json("POST", buyback, a.as))).body).toEqual({ ref: buyback.ref, queued: true });
    expect((await call("createDaemonBuyback", buybacks, json("POST", buyback, a.as))).body).toEqual({ ref: buyback.ref, queued: false });
    expect([
      await code("createDaemonBuyback", buybacks, json("POST", { ...buyback, burn: false }, a.as)),
      await code("createDaemonBuyback", buybacks, json("POST", { lamports: "500000001", slippageBps: -1 }, a.as)),
      await code("createDaemonBuyback", buybacks, json("POST", { lamports: "1000000" })),
      await code("createDaemonBuyback", `/v1/daemons/${idle.mint}/buybacks`, json("POST", { lamports: "1000000" }, idle.as)),
    ]).toEqual(["REF_REUSED", "VALIDATION_ERROR", "AUTH_REQUIRED", "CURVE_COMPLETE"]);
    expect((await call("listDaemonBuybacks", `${buybacks}?limit=5`)).body.items).toMatchObject([{ ref: buyback.ref, status: "queued", transaction: null, venue: null }]);
    // the swap lands (what the swap builder reports once confirmed), then the burn it queues
    const swapped = { venue: "dbc", pool, minimumOut: "700000", tokenProgram: TOKEN_PROGRAM_ID.toBase58(), decimals: 6, tokensReceived: "712345" };
    const [row] = await p.engines.sql<{ id: string }[]>`SELECT id::text FROM buybacks WHERE mint = ${a.mint} AND ref = ${buyback.ref}`;
    await landBatchesOf(p.engines.sql, owners, { kind: "buyback", id: row!.id }, (b) => (b.builder === "buyback.burn" ? { tokensBurned: "712345" } : swapped));
    const [done] = (await call("listDaemonBuybacks", `${buybacks}?limit=5`)).body.items;
    expect(done).toMatchObject({ status: "done", venue: "dbc", pool, minimumOut: "700000", tokensReceived: "712345", tokensBurned: "712345", requestedBy: "operator" });
    expect([done.transaction, done.burnTransaction]).toEqual([expect.any(String), expect.any(String)]);
    expect(await code("listDaemonBuybacks", `/v1/daemons/${UNKNOWN}/buybacks`)).toBe("NOT_FOUND");
  });

  test("the Launch API and stored media", async () => {
    const creator = Keypair.generate();
    const created = await call("createLaunch", "/v1/launches", json("POST", p.body(creator), { ...key(), "idempotency-key": newIdempotencyKey() }));
    expect(created.status).toBe(201);
    await call("createLaunch", "/v1/launches", json("POST", p.body(creator), key()));
    await call("createLaunch", "/v1/launches", json("POST", { name: "" }, { "idempotency-key": newIdempotencyKey() }));
    const launch = created.body;
    await call("getLaunch", `/v1/launches/${launch.id}`, { headers: key() });
    await call("getLaunch", `/v1/launches/${crypto.randomUUID()}`, { headers: key() });
    await call("submitLaunch", `/v1/launches/${launch.id}/submit`, json("POST", {}, key()));
    await call("submitLaunch", `/v1/launches/${launch.id}/submit`, json("POST", { signedTransaction: signAsCreator(launch.transaction, creator) }, key()));
    await call("rebuildLaunch", `/v1/launches/${launch.id}/rebuild`, { method: "POST", headers: key() });

    // an expired launch is rebuilt
    const late = await p.built();
    const height = p.rpc.blockHeight();
    p.rpc.setBlockHeight(late.launch.lastValidBlockHeight + 1);
    try {
      await call("submitLaunch", `/v1/launches/${late.launch.id}/submit`, json("POST", { signedTransaction: signAsCreator(late.launch.transaction, late.creator) }, key()));
      await call("rebuildLaunch", `/v1/launches/${late.launch.id}/rebuild`, { method: "POST", headers: key() });
    } finally {
      p.rpc.setBlockHeight(height);
    }
    await call("listStocks", "/v1/stocks", { headers: key() });
    await call("listStocks", "/v1/stocks", { headers: { authorization: "Bearer not-a-key" } });

    const [row] = await p.engines.sql<{ image_url: string }[]>`SELECT image_url FROM launches WHERE id = ${launch.id}`;
    const name = row!.image_url.split("/v1/media/")[1]!;
    await call("getMedia", `/v1/media/${name}`);
    await call("getMedia", `/v1/media/${"0".repeat(64)}.png`);
  });

  test("the Helius webhook", async () => {
    const fixture = JSON.parse(readFileSync(`${FIXTURES}helius-devnet/${readdirSync(`${FIXTURES}helius-devnet`)[0]}`, "utf8"));
    await call("postHeliusWebhook", "/v1/ingest/helius", json("POST", [fixture], { authorization: "test-webhook-secret-0123456789" }));
    await call("postHeliusWebhook", "/v1/ingest/helius", json("POST", [fixture], { authorization: "wrong" }));
    await call("postHeliusWebhook", "/v1/ingest/helius", json("POST", { not: "an array" }, { authorization: "test-webhook-secret-0123456789" }));
  });

  test("429 and 503 of reads that refuse nothing else", async () => {
    // a real socket (in-process calls are not rate limited), one request a minute per client, and no SOL price source
    await overNetwork({ solUsd: null, env: { DATA_API_RATE_PER_MINUTE: "1", DATA_API_RATE_BURST: "1" } }, async (get) => {
      const answer = async (operationId: string, path: string) => {
        const res = await get(path);
        const a = { status: res.status, headers: res.headers, body: await res.json() };
        expect({ operationId, problems: contract.check(operationId, a) }).toEqual({ operationId, problems: [] });
        return a.status;
      };
      expect(await answer("getDataSolPrice", "/v1/public/price/sol")).toBe(503);
      const limited = {
        getDataStats: "/v1/public/stats", listConfigs: "/v1/public/configs", getSolPrice: "/v1/price/sol", getPlatformStats: "/v1/platform/stats",
        getTokenomics: "/v1/tokenomics", getDaemonCatalog: "/v1/daemons/catalog",
      };
      for (const [operationId, path] of Object.entries(limited)) expect(await answer(operationId, path)).toBe(429);
    });
  });

  test("every operation was seen answering with success and with an error", () => {
    expect(contract.unseen()).toEqual({ success: [], error: [] });
  });
});
