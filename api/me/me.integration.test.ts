/**
 * The signed-in account on the real app, embedded Postgres and chDB, signed in with real
 * keypairs; balances from the loopback RPC test double.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registryWith, testPlatform } from "../../compose/testing/platform";
import { bearer, signIn, testWallet } from "../../compose/testing/sign-in";
import { startRpcTestDouble } from "../../infra/testing/rpc-double";
import { refreshDirectory } from "../../pipelines/agents-sink";

const CONFIG = testWallet().address;
const configs = registryWith([{ role: "launch", address: CONFIG }]);
const operator = testWallet();
const other = testWallet();
/** operator's coins, oldest first; `hidden` is hidden by moderation */
const mints = { first: testWallet().address, second: testWallet().address, third: testWallet().address, hidden: testWallet().address, others: testWallet().address };

let rpc: ReturnType<typeof startRpcTestDouble>;
let p: Awaited<ReturnType<typeof testPlatform>>;
let noRpc: Awaited<ReturnType<typeof testPlatform>>;
let token: string;

beforeAll(async () => {
  rpc = startRpcTestDouble(new Map([[operator.address, { lamports: 2_500_000_001, data: new Uint8Array(0) }]]));
  p = await testPlatform(configs, { env: { SOLANA_RPC_URL: rpc.url } });
  noRpc = await testPlatform(configs);
  const sql = p.engines.sql;
  const coin = async (mint: string, creator: string, createdAt: string, hidden = false) =>
    sql`INSERT INTO agents (mint, coin_name, symbol, creator, vault, config, dbc_pool, hidden, created_at)
        VALUES (${mint}, ${"Coin " + mint.slice(0, 4)}, ${"C" + mint.slice(0, 3)}, ${creator}, ${testWallet().address}, ${CONFIG}, ${testWallet().address}, ${hidden}, ${createdAt})`;
  await coin(mints.first, operator.address, "2026-11-20T10:00:00.000001Z");
  await coin(mints.second, operator.address, "2026-11-21T10:00:00Z");
  await coin(mints.third, operator.address, "2026-11-22T10:00:00Z");
  await coin(mints.hidden, operator.address, "2026-11-23T10:00:00Z", true);
  await coin(mints.others, other.address, "2026-11-24T10:00:00Z");
  await refreshDirectory(sql, p.engines.ch, configs, Object.values(mints));
  token = (await signIn(p.call, operator)).accessToken;
});
afterAll(() => rpc?.stop());

const get = (path: string, t = token, platform = p) => platform.call(path, { headers: bearer(t) });

describe("GET /v1/me", () => {
  test("the wallet, how many agents it launched (hidden ones not counted) and when the token ends", async () => {
    const pair = await signIn(p.call, operator);
    const res = await get("/v1/me", pair.accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ address: operator.address, agents: 3, expiresAt: pair.expiresAt });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect((await get("/v1/me", (await signIn(p.call, testWallet())).accessToken)).body.agents).toBe(0);
  });
});

describe("GET /v1/me/agents", () => {
  test("the wallet's agents, newest first, in the Data API's agent shape, paged", async () => {
    const one = await get("/v1/me/agents?limit=2");
    expect(one.status).toBe(200);
    expect(one.body.items.map((a: { mint: string }) => a.mint)).toEqual([mints.third, mints.second]);
    expect(typeof one.body.nextCursor).toBe("string");
    const two = await get(`/v1/me/agents?limit=2&cursor=${one.body.nextCursor}`);
    expect(two.body).toMatchObject({ nextCursor: null });
    expect(two.body.items.map((a: { mint: string }) => a.mint)).toEqual([mints.first]);
    const all = await get("/v1/me/agents");
    expect(all.body.items.map((a: { mint: string }) => a.mint)).toEqual([mints.third, mints.second, mints.first]);
    expect(all.body.nextCursor).toBeNull();
    for (const item of all.body.items) {
      const pub = await p.call(`/v1/public/agents/${item.mint}`);
      expect(pub.status).toBe(200);
      expect(item).toEqual({ ...pub.body, links: null });
      expect(item.creator).toBe(operator.address);
    }
  });

  test("a cursor of another wallet's list, or a bad limit: 400 VALIDATION_ERROR", async () => {
    const theirs = await get("/v1/me/agents?limit=1", (await signIn(p.call, other)).accessToken);
    expect(theirs.body.items.map((a: { mint: string }) => a.mint)).toEqual([mints.others]);
    const mine = await get("/v1/me/agents?limit=1");
    const crossed = await get(`/v1/me/agents?cursor=${mine.body.nextCursor}`, (await signIn(p.call, other)).accessToken);
    expect([crossed.status, crossed.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    const bad = await get("/v1/me/agents?limit=0&cursor=x");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: "limit", message: "must be an integer from 1 to 50" }]);
  });

  test("signed out: 401", async () => {
    const res = await p.call("/v1/me/agents");
    expect([res.status, res.body.error.code]).toEqual([401, "AUTH_REQUIRED"]);
  });
});

describe("GET /v1/me/wallet", () => {
  const balanceReads = () => rpc.calls.filter((c) => c.method === "getMultipleAccounts").length;

  test("the wallet's lamports over RPC as a decimal string, read once per 5 s", async () => {
    const before = balanceReads();
    const res = await get("/v1/me/wallet");
    expect([res.status, res.body]).toEqual([200, { address: operator.address, lamports: "2500000001" }]);
    expect((await get("/v1/me/wallet")).body.lamports).toBe("2500000001");
    expect(balanceReads()).toBe(before + 1);
    const empty = await get("/v1/me/wallet", (await signIn(p.call, other)).accessToken);
    expect(empty.body).toEqual({ address: other.address, lamports: "0" });
  });

  test("RPC trouble: 502 UPSTREAM_ERROR, not kept; without RPC: 503", async () => {
    const w = testWallet();
    rpc.setAccount(w.address, { lamports: 42, data: new Uint8Array(0) });
    const t = (await signIn(p.call, w)).accessToken;
    rpc.failNext(1, { status: 500 });
    const failed = await get("/v1/me/wallet", t);
    expect([failed.status, failed.body.error.code, failed.headers.get("retry-after")]).toEqual([502, "UPSTREAM_ERROR", "2"]);
    expect((await get("/v1/me/wallet", t)).body).toEqual({ address: w.address, lamports: "42" });
    const none = await get("/v1/me/wallet", (await signIn(noRpc.call, w)).accessToken, noRpc);
    expect([none.status, none.body.error.code]).toEqual([503, "UPSTREAM_ERROR"]);
  });
});
