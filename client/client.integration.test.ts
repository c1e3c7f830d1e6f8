/**
 * The typed client (client/index.ts) against the running app over a real loopback socket:
 * the Data API and Application API reads (path and query parameters, a comma list), an
 * error answer as the typed envelope, wallet sign-in and a signed-in read, and the Launch
 * API with its key.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { launchTestPlatform } from "../compose/testing/launch";
import { FIXTURES } from "../compose/testing/platform";
import { FIXTURE_MINT as MINT } from "../compose/testing/data-api";
import { testWallet } from "../compose/testing/sign-in";
import { createPlatformClient, type PlatformClient } from "./index";

let p: Awaited<ReturnType<typeof launchTestPlatform>>;
let server: { stop(force?: boolean): Promise<void> | void; port: number | undefined };
let api: PlatformClient;
let baseUrl: string;

beforeAll(async () => {
  p = await launchTestPlatform();
  const fixtures = readdirSync(`${FIXTURES}helius-devnet`).map((name) => JSON.parse(readFileSync(`${FIXTURES}helius-devnet/${name}`, "utf8")));
  expect((await p.postWebhook(fixtures)).status).toBe(200);
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => p.app.handle(request) });
  baseUrl = `http://127.0.0.1:${server.port}`;
  api = createPlatformClient({ baseUrl });
});

afterAll(async () => {
  await server?.stop(true);
  p?.stop();
});

test("Data API reads: a page, one agent by path parameter, its trades", async () => {
  const list = await api.GET("/v1/public/agents", { params: { query: { sort: "new", limit: 50 } } });
  expect(list.response.status).toBe(200);
  expect(list.data!.items.map((a) => a.mint)).toContain(MINT);
  const one = await api.GET("/v1/public/agents/{mint}", { params: { path: { mint: MINT } } });
  expect(one.data!.mint).toBe(MINT);
  expect(one.data!.market.quote.kind).toBe("sol");
  const trades = await api.GET("/v1/public/agents/{mint}/trades", { params: { path: { mint: MINT }, query: { limit: 2 } } });
  expect(trades.data!.items).toHaveLength(2);
  expect(trades.data!.items.every((t) => t.mint === MINT && (t.side === "buy" || t.side === "sell"))).toBe(true);
});

test("a comma list goes out as the API reads it (kinds=launch,trade)", async () => {
  const feed = await api.GET("/v1/daemons/{mint}/feed", { params: { path: { mint: MINT }, query: { kinds: ["launch", "trade"], limit: 50 } } });
  expect(feed.response.status).toBe(200);
  const kinds = new Set(feed.data!.items.map((i) => i.kind));
  expect([...kinds].sort()).toEqual(["launch", "trade"]);
});

test("an error answer is the typed envelope", async () => {
  const bad = await api.GET("/v1/public/agents", { params: { query: { limit: 0 } } });
  expect(bad.response.status).toBe(400);
  expect(bad.data).toBeUndefined();
  expect(bad.error!.error.code).toBe("VALIDATION_ERROR");
  expect(bad.error!.error.details).toEqual([{ field: "limit", message: "must be an integer from 1 to 50" }]);
});

test("wallet sign-in, then a signed-in read with the access token", async () => {
  const wallet = testWallet();
  const nonce = await api.POST("/v1/auth/nonce", { body: { address: wallet.address } });
  expect(nonce.data!.signInInput.address).toBe(wallet.address);
  const verified = await api.POST("/v1/auth/verify", { body: { message: nonce.data!.message, signature: wallet.sign(nonce.data!.message) } });
  expect(verified.data!.address).toBe(wallet.address);
  const signedIn = createPlatformClient({ baseUrl, bearer: verified.data!.accessToken });
  const me = await signedIn.GET("/v1/me");
  expect(me.data).toEqual({ address: wallet.address, agents: 0, expiresAt: verified.data!.expiresAt });
  const anonymous = await api.GET("/v1/me");
  expect([anonymous.response.status, anonymous.error!.error.code]).toEqual([401, "AUTH_REQUIRED"]);
});

test("the Launch API with a key: the stocks list and a launch's 404", async () => {
  const launches = createPlatformClient({ baseUrl, bearer: p.key });
  const stocks = await launches.GET("/v1/stocks");
  expect(stocks.data!.items.map((s) => s.ticker)).toEqual(["TSLA"]);
  const missing = await launches.GET("/v1/launches/{id}", { params: { path: { id: crypto.randomUUID() } } });
  expect([missing.response.status, missing.error!.error.code]).toEqual([404, "LAUNCH_NOT_FOUND"]);
});
