/**
 * Wallet sign-in on the real app and embedded Postgres: real ed25519 keypairs sign real
 * Sign-In With Solana messages. The platform runs on devnet at https://agents.example, so
 * its messages name the domain agents.example, that URI and chain devnet.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Elysia } from "elysia";
import { callerOf, registryWith, testPlatform } from "../../compose/testing/platform";
import { bearer, postJson, signIn, testWallet, type TestWallet } from "../../compose/testing/sign-in";
import { dataApiDeps, signInApiDeps } from "../../compose/wiring";
import { createApp } from "../app";
import { createLogger } from "../../infra/log";
import { createSolPriceService } from "../../infra/sol-price";
import { signInMessageText } from "./siws";
import { requireOperator } from ".";

const CONFIG = testWallet().address;
let p: Awaited<ReturnType<typeof testPlatform>>;

/** The same platform with a clock the test moves, logging at debug level into `logged`. */
let clock: { t: number };
let timed: { call: typeof p.call };
const logged: string[] = [];

beforeAll(async () => {
  const configs = registryWith([{ role: "launch", address: CONFIG }]);
  p = await testPlatform(configs, { env: { AUTH_NONCE_RATE_PER_MINUTE: "0" } });
  clock = { t: Date.parse("2026-11-26T12:00:00.000Z") };
  const log = createLogger("debug", {}, (line) => void logged.push(line));
  const data = dataApiDeps(p.config, p.engines, configs, createSolPriceService([], log));
  const deps = signInApiDeps(p.config, p.engines, null, log, data, { now: () => new Date(clock.t) });
  const app = createApp({ log, ready: async () => true, data: null, ingest: null, auth: deps.routes, me: deps.me });
  timed = { call: callerOf(app) };
});

const nonceFor = async (w: TestWallet, call = p.call) => {
  const res = await postJson(call, "/v1/auth/nonce", { address: w.address });
  expect(res.status).toBe(200);
  return res.body as { nonce: string; message: string; expiresAt: string; signInInput: Record<string, string> };
};
const verify = (message: string, signature: string, call = p.call) => postJson(call, "/v1/auth/verify", { message, signature });
const me = (token: string, call = p.call) => call("/v1/me", { headers: bearer(token) });
const codeOf = (res: { body: any }) => res.body?.error?.code;
/** The message /auth/nonce gave, with fields changed, as a wallet would sign it. */
const edited = (n: { signInInput: Record<string, string> }, changes: Record<string, string>) => signInMessageText({ ...n.signInInput, ...changes } as never);
const sha256 = (s: string) => createHash("sha256").update(s).digest();

describe("POST /v1/auth/nonce", () => {
  test("the message names our domain, URI, devnet, the nonce and a 5 minute window", async () => {
    const w = testWallet();
    const before = Date.now();
    const n = await nonceFor(w);
    const issuedAt = n.signInInput.issuedAt!;
    expect(Date.parse(issuedAt)).toBeGreaterThanOrEqual(before - 1);
    expect(n.expiresAt).toBe(new Date(Date.parse(issuedAt) + 5 * 60_000).toISOString());
    expect(n.nonce).toMatch(/^[1-9A-HJ-NP-Za-km-z]{16,24}$/);
    expect(n.message).toBe(
      "agents.example wants you to sign in with your Solana account:\n" +
        `${w.address}\n\n` +
        "Sign in to agents.example with this wallet. Signing costs nothing and sends no transaction.\n\n" +
        "URI: https://agents.example\n" +
        "Version: 1\n" +
        "Chain ID: devnet\n" +
        `Nonce: ${n.nonce}\n` +
        `Issued At: ${issuedAt}\n` +
        `Expiration Time: ${n.expiresAt}`,
    );
    expect(n.signInInput).toEqual({
      domain: "agents.example",
      address: w.address,
      statement: "Sign in to agents.example with this wallet. Signing costs nothing and sends no transaction.",
      uri: "https://agents.example",
      version: "1",
      chainId: "devnet",
      nonce: n.nonce,
      issuedAt,
      expirationTime: n.expiresAt,
    });
    const [row] = await p.engines.sql`SELECT address, expires_at, used_at FROM auth_nonces WHERE nonce = ${n.nonce}`;
    expect(row).toEqual({ address: w.address, expires_at: new Date(n.expiresAt), used_at: null });
    expect((await nonceFor(w)).nonce).not.toBe(n.nonce);
  });

  test("every problem of the body at once: 400 VALIDATION_ERROR", async () => {
    const bad = await postJson(p.call, "/v1/auth/nonce", { address: "not-an-address", extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect(bad.body.error.details).toEqual([
      { field: "address", message: "must be a base58 Solana address (32 bytes)" },
      { field: "extra", message: "is not a field of this request" },
    ]);
    // base58, but 64 bytes: a signature, not an address
    const long = await postJson(p.call, "/v1/auth/nonce", { address: testWallet().sign("x") });
    expect(long.body.error.details).toEqual([{ field: "address", message: "must be a base58 Solana address (32 bytes)" }]);
    const missing = await postJson(p.call, "/v1/auth/nonce", {});
    expect(missing.body.error.details).toEqual([{ field: "address", message: "is required" }]);
    const notJson = await p.call("/v1/auth/nonce", { method: "POST", body: "{address" });
    expect([notJson.status, notJson.body.error.details]).toEqual([400, [{ field: "body", message: "is not valid JSON" }]]);
  });
});

describe("POST /v1/auth/verify", () => {
  test("a real signature opens a session; only hashes of the tokens are stored", async () => {
    const w = testWallet();
    const n = await nonceFor(w);
    const res = await verify(n.message, w.sign(n.message));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { accessToken, refreshToken, expiresAt, refreshExpiresAt, address } = res.body;
    expect(address).toBe(w.address);
    expect(accessToken).toMatch(/^acp_at_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
    expect(refreshToken).toMatch(/^acp_rt_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
    const [s] = await p.engines.sql`SELECT * FROM auth_sessions WHERE address = ${w.address}`;
    expect(Buffer.from(s!.access_hash)).toEqual(sha256(accessToken));
    expect(Buffer.from(s!.refresh_hash)).toEqual(sha256(refreshToken));
    expect(s!.access_expires_at.toISOString()).toBe(expiresAt);
    expect(s!.access_expires_at.getTime() - s!.created_at.getTime()).toBe(3_600_000);
    expect(s!.refresh_expires_at.toISOString()).toBe(refreshExpiresAt);
    expect(s!.refresh_expires_at.getTime() - s!.created_at.getTime()).toBe(30 * 86_400_000);
    const stored = JSON.stringify(await p.engines.sql`SELECT * FROM auth_sessions`);
    expect(stored).not.toContain(accessToken.slice(7));
    expect(stored).not.toContain(refreshToken.slice(7));
    const who = await me(accessToken);
    expect(who.status).toBe(200);
    expect(who.body).toEqual({ address: w.address, agents: 0, expiresAt });
  });

  test("a replayed message is 401 NONCE_USED; of ten verifies at once exactly one signs in", async () => {
    const w = testWallet();
    const n = await nonceFor(w);
    const sig = w.sign(n.message);
    const results = await Promise.all(Array.from({ length: 10 }, () => verify(n.message, sig)));
    expect(results.filter((r) => r.status === 200).length).toBe(1);
    expect(results.filter((r) => r.status === 401).map(codeOf)).toEqual(Array(9).fill("NONCE_USED"));
    const again = await verify(n.message, sig);
    expect([again.status, codeOf(again)]).toEqual([401, "NONCE_USED"]);
    expect(again.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
  });

  test("a signature by another key: 401 BAD_SIGNATURE, and the nonce stays usable by its wallet", async () => {
    const w = testWallet();
    const n = await nonceFor(w);
    const res = await verify(n.message, testWallet().sign(n.message));
    expect([res.status, codeOf(res)]).toEqual([401, "BAD_SIGNATURE"]);
    // the wallet's signature of another text
    const other = await verify(n.message, w.sign(n.message + " "));
    expect(codeOf(other)).toBe("BAD_SIGNATURE");
    expect((await verify(n.message, w.sign(n.message))).status).toBe(200);
  });

  test("another wallet's nonce, or one never issued: 401 NONCE_INVALID", async () => {
    const a = testWallet();
    const b = testWallet();
    const n = await nonceFor(a);
    const stolen = edited(n, { address: b.address });
    const res = await verify(stolen, b.sign(stolen));
    expect([res.status, codeOf(res)]).toEqual([401, "NONCE_INVALID"]);
    const made = edited(n, { nonce: "madeUpNonce123" });
    expect(codeOf(await verify(made, a.sign(made)))).toBe("NONCE_INVALID");
    // a's nonce is untouched by both
    expect((await verify(n.message, a.sign(n.message))).status).toBe(200);
  });

  test("a message for another domain, URI or chain is refused with its code, even well signed", async () => {
    const w = testWallet();
    const n = await nonceFor(w);
    const cases: [Record<string, string>, string, string][] = [
      [{ domain: "evil.example" }, "DOMAIN_MISMATCH", 'the message signs in to "evil.example", not to agents.example'],
      [{ uri: "https://evil.example" }, "DOMAIN_MISMATCH", 'the message\'s URI is "https://evil.example", not https://agents.example'],
      [{ chainId: "mainnet" }, "CHAIN_MISMATCH", 'the message is for chain "mainnet"; this platform runs on devnet'],
      [{ version: "2" }, "MESSAGE_INVALID", 'the message\'s version is "2"; only version 1 is known'],
      [{ issuedAt: "yesterday" }, "MESSAGE_INVALID", "the message's Issued At must be an ISO 8601 time"],
    ];
    for (const [changes, code, message] of cases) {
      const text = edited(n, changes);
      const res = await verify(text, w.sign(text));
      expect([res.status, res.body.error]).toEqual([401, { code, message }]);
    }
    // the Wallet Standard's CAIP-2 spelling of the chain is ours too
    const caip = edited(n, { chainId: "solana:devnet" });
    expect((await verify(caip, w.sign(caip))).status).toBe(200);
  });

  test("text that is not a sign-in message: 401 MESSAGE_INVALID; a malformed body: 400", async () => {
    const w = testWallet();
    const res = await verify("hello", w.sign("hello"));
    expect([res.status, codeOf(res)]).toEqual([401, "MESSAGE_INVALID"]);
    expect(res.body.error.message).toStartWith("the message is not a sign-in message: the first line must be");
    const bad = await postJson(p.call, "/v1/auth/verify", { message: "x".repeat(2049), signature: "0OIl" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      { field: "message", message: "must be at most 2048 characters" },
      { field: "signature", message: "must be the 64-byte ed25519 signature in base58" },
    ]);
  });

  test("past its 5 minutes the message is 401 MESSAGE_EXPIRED; a Not Before ahead is MESSAGE_NOT_YET_VALID", async () => {
    const w = testWallet();
    const n = await nonceFor(w, timed.call);
    expect(n.signInInput.issuedAt).toBe(new Date(clock.t).toISOString());
    clock.t += 5 * 60_000;
    const late = await verify(n.message, w.sign(n.message), timed.call);
    expect([late.status, codeOf(late)]).toEqual([401, "MESSAGE_EXPIRED"]);
    // a later Expiration Time written into the message does not outlive the nonce
    const stretched = edited(n, { expirationTime: new Date(clock.t + 3_600_000).toISOString() });
    expect(codeOf(await verify(stretched, w.sign(stretched), timed.call))).toBe("MESSAGE_EXPIRED");
    const fresh = await nonceFor(w, timed.call);
    const early = edited(fresh, { notBefore: new Date(clock.t + 60_000).toISOString() });
    expect(codeOf(await verify(early, w.sign(early), timed.call))).toBe("MESSAGE_NOT_YET_VALID");
    clock.t += 5 * 60_000 - 1;
    expect((await verify(fresh.message, w.sign(fresh.message), timed.call)).status).toBe(200);
  });
});

describe("tokens: expiry, refresh rotation, logout", () => {
  test("an access token lasts an hour; refresh gives a new pair and retires the old one", async () => {
    const w = testWallet();
    const pair = await signIn(timed.call, w);
    expect((await me(pair.accessToken, timed.call)).status).toBe(200);
    clock.t += 3_600_000;
    const expired = await me(pair.accessToken, timed.call);
    expect([expired.status, codeOf(expired)]).toEqual([401, "TOKEN_EXPIRED"]);
    const next = await postJson(timed.call, "/v1/auth/refresh", { refreshToken: pair.refreshToken });
    expect(next.status).toBe(200);
    expect(next.body.address).toBe(w.address);
    expect(next.body.expiresAt).toBe(new Date(clock.t + 3_600_000).toISOString());
    expect(next.body.accessToken).not.toBe(pair.accessToken);
    expect(next.body.refreshToken).not.toBe(pair.refreshToken);
    expect((await me(next.body.accessToken, timed.call)).body.address).toBe(w.address);
    expect(codeOf(await me(pair.accessToken, timed.call))).toBe("TOKEN_INVALID");
    // the exchanged refresh token presented again: it leaked; the whole session ends
    const reuse = await postJson(timed.call, "/v1/auth/refresh", { refreshToken: pair.refreshToken });
    expect([reuse.status, codeOf(reuse)]).toEqual([401, "REFRESH_TOKEN_REUSED"]);
    expect(codeOf(await me(next.body.accessToken, timed.call))).toBe("TOKEN_REVOKED");
    expect(codeOf(await postJson(timed.call, "/v1/auth/refresh", { refreshToken: next.body.refreshToken }))).toBe("TOKEN_REVOKED");
    expect(logged.some((l) => l.includes("refresh token reused") && l.includes(w.address))).toBe(true);
  });

  test("a refresh token past its 30 days: 401 TOKEN_EXPIRED", async () => {
    const pair = await signIn(timed.call, testWallet());
    clock.t += 30 * 86_400_000;
    expect(codeOf(await postJson(timed.call, "/v1/auth/refresh", { refreshToken: pair.refreshToken }))).toBe("TOKEN_EXPIRED");
  });

  test("nonces, sessions and spent refresh tokens a day past their end are swept when nonces are issued", async () => {
    const w = testWallet();
    const pair = await signIn(timed.call, w);
    await postJson(timed.call, "/v1/auth/refresh", { refreshToken: pair.refreshToken });
    const rows = async () => {
      const [r] = await p.engines.sql`
        SELECT (SELECT count(*)::int FROM auth_nonces WHERE address = ${w.address}) AS nonces,
               (SELECT count(*)::int FROM auth_sessions WHERE address = ${w.address}) AS sessions,
               (SELECT count(*)::int FROM auth_spent_refresh_tokens t JOIN auth_sessions s ON s.id = t.session_id WHERE s.address = ${w.address}) AS spent`;
      return r;
    };
    expect(await rows()).toEqual({ nonces: 1, sessions: 1, spent: 1 });
    clock.t += 2 * 86_400_000; // the nonce is a day past its end; the session lives on (30 days)
    await nonceFor(testWallet(), timed.call);
    expect(await rows()).toEqual({ nonces: 0, sessions: 1, spent: 1 });
    clock.t += 30 * 86_400_000; // the session's refresh token is a day past its end
    await nonceFor(testWallet(), timed.call);
    expect(await rows()).toEqual({ nonces: 0, sessions: 0, spent: 0 });
  });

  test("logout with the access token, or with the refresh token, revokes every token of the session", async () => {
    const a = await signIn(p.call, testWallet());
    const out = await postJson(p.call, "/v1/auth/logout", {}, bearer(a.accessToken));
    expect([out.status, out.body]).toEqual([200, { signedOut: true }]);
    expect(codeOf(await me(a.accessToken))).toBe("TOKEN_REVOKED");
    expect(codeOf(await postJson(p.call, "/v1/auth/refresh", { refreshToken: a.refreshToken }))).toBe("TOKEN_REVOKED");
    const b = await signIn(p.call, testWallet());
    const byRefresh = await p.call("/v1/auth/logout", { method: "POST", body: JSON.stringify({ refreshToken: b.refreshToken }) });
    expect(byRefresh.status).toBe(200);
    expect(codeOf(await me(b.accessToken))).toBe("TOKEN_REVOKED");
    // an empty body logs out with the Authorization header
    const c = await signIn(p.call, testWallet());
    expect((await p.call("/v1/auth/logout", { method: "POST", headers: bearer(c.accessToken) })).status).toBe(200);
    expect(codeOf(await me(c.accessToken))).toBe("TOKEN_REVOKED");
    expect(codeOf(await p.call("/v1/auth/logout", { method: "POST" }))).toBe("AUTH_REQUIRED");
    expect(codeOf(await postJson(p.call, "/v1/auth/logout", { refreshToken: "acp_rt_" + "1".repeat(44) }))).toBe("TOKEN_INVALID");
  });

  test("without a token, with another scheme, or with a token of the wrong kind: 401 with its code", async () => {
    const pair = await signIn(p.call, testWallet());
    const none = await p.call("/v1/me");
    expect([none.status, codeOf(none), none.headers.get("www-authenticate")]).toEqual([401, "AUTH_REQUIRED", "Bearer"]);
    expect(codeOf(await p.call("/v1/me", { headers: { authorization: `Basic ${pair.accessToken}` } }))).toBe("TOKEN_INVALID");
    expect(codeOf(await me(pair.refreshToken))).toBe("TOKEN_INVALID");
    expect(codeOf(await postJson(p.call, "/v1/auth/refresh", { refreshToken: pair.accessToken }))).toBe("TOKEN_INVALID");
    expect(codeOf(await me("acp_at_" + "1".repeat(44)))).toBe("TOKEN_INVALID");
    const bad = await postJson(p.call, "/v1/auth/refresh", { refreshToken: 5 });
    expect([bad.status, bad.body.error.details]).toEqual([400, [{ field: "refreshToken", message: "must be a string" }]]);
  });

  test("no token is ever logged", () => {
    // every sign-in, refresh and logout above on the timed app logged at debug level
    expect(logged.length).toBeGreaterThan(3);
    const text = logged.join("\n");
    expect(text).not.toMatch(/acp_(at|rt)_/);
  });
});

describe("hostile input", () => {
  test("every edit of a real message, signed by its wallet, and odd bodies and tokens: never a 500", async () => {
    const w = testWallet();
    const n = await nonceFor(w);
    const edits = [(m: string, i: number) => m.slice(0, i) + m.slice(i + 1), ...["\u0000", "\ud800", "\n", "\r", "é", " ", "Nonce: x"].map((c) => (m: string, i: number) => m.slice(0, i) + c + m.slice(i))];
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    for (let i = 0; i < n.message.length; i += 5)
      for (const edit of edits) {
        const text = edit(n.message, i);
        const res = await verify(text, w.sign(text));
        count(res.status);
        if (res.status === 200) break; // an edit that still reads as the same sign-in (e.g. in the statement) spends the nonce
      }
    const bodies: unknown[] = [null, [], "x", 1, { message: 1, signature: [] }, { message: {}, signature: null }, { message: "a".repeat(3000) }, { address: ["x"] }, { refreshToken: "\u0000" }];
    for (const body of bodies)
      for (const path of ["nonce", "verify", "refresh", "logout"]) count((await postJson(p.call, `/v1/auth/${path}`, body)).status);
    for (const token of ["", "acp_at_é", "acp_at_" + "z".repeat(500), "Bearer", "x".repeat(5000)])
      for (const path of ["/v1/me", "/v1/me/agents", "/v1/me/wallet"]) count((await p.call(path, { headers: { authorization: `Bearer ${token}` } })).status);
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    expect(statuses.get(401)! + statuses.get(400)!).toBeGreaterThan(300);
  });
});

describe("CORS", () => {
  test("preflight allows Authorization from any origin; answers and errors carry the origin", async () => {
    for (const path of ["/v1/auth/verify", "/v1/me", "/v1/me/agents"]) {
      const pre = await p.call(path, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-headers": "authorization" } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
      expect(pre.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
    }
    const err = await p.call("/v1/me");
    expect(err.headers.get("access-control-allow-origin")).toBe("*");
    const ok = await postJson(p.call, "/v1/auth/nonce", { address: testWallet().address });
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("rates per client address", () => {
  test("beyond AUTH_NONCE_RATE_PER_MINUTE nonces, or the public reads' budget: 429 RATE_LIMITED with Retry-After", async () => {
    const env = { AUTH_NONCE_RATE_PER_MINUTE: "3", DATA_API_RATE_PER_MINUTE: "1", DATA_API_RATE_BURST: "6" };
    const limited = await testPlatform(registryWith([{ role: "launch", address: CONFIG }]), { env });
    const server = limited.app.listen({ port: 0, hostname: "127.0.0.1" });
    try {
      const post = () =>
        fetch(`http://127.0.0.1:${server.server!.port}/v1/auth/nonce`, { method: "POST", body: JSON.stringify({ address: testWallet().address }) });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await post()).status);
      const over = await post();
      expect([...statuses, over.status]).toEqual([200, 200, 200, 429]);
      expect((await over.json()).error.code).toBe("RATE_LIMITED");
      expect(Number(over.headers.get("retry-after"))).toBe(20);
      // six requests of the budget: four nonces above (the refused one counted), two reads; then 429
      const read = () => fetch(`http://127.0.0.1:${server.server!.port}/v1/me`);
      const reads = [(await read()).status, (await read()).status];
      const refused = await read();
      expect([...reads, refused.status]).toEqual([401, 401, 429]);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(55);
    } finally {
      await server.stop(true);
    }
  });
});

describe("the daemon surface signs in with it (the default wiring)", () => {
  test("an operator route and /me/approvals take the access token; another wallet 403, none or a revoked one 401 with its reason", async () => {
    const creator = testWallet();
    const mint = testWallet().address;
    await p.engines.sql`INSERT INTO agents (mint, creator, vault, config) VALUES (${mint}, ${creator.address}, ${testWallet().address}, ${CONFIG})`;
    const mine = await signIn(p.call, creator);
    const spend = await p.call(`/v1/daemons/${mint}/spend`, { headers: bearer(mine.accessToken) });
    expect(spend.status).toBe(200);
    expect(spend.body.week).toBe("0");
    expect(await p.call("/v1/me/approvals", { headers: bearer(mine.accessToken) })).toMatchObject({ status: 200, body: { items: [], total: 0 } });
    const theirs = await signIn(p.call, testWallet());
    expect(codeOf(await p.call(`/v1/daemons/${mint}/spend`, { headers: bearer(theirs.accessToken) }))).toBe("NOT_OPERATOR");
    expect(codeOf(await p.call(`/v1/daemons/${mint}/spend`))).toBe("AUTH_REQUIRED");
    await postJson(p.call, "/v1/auth/logout", {}, bearer(mine.accessToken));
    const after = await p.call(`/v1/daemons/${mint}/spend`, { headers: bearer(mine.accessToken) });
    // the sign-in's own reason, as on /me: the client knows to sign in again, not just that it must
    expect([after.status, codeOf(after)]).toEqual([401, "TOKEN_REVOKED"]);
    expect(codeOf(await p.call(`/v1/daemons/${mint}/spend`, { headers: bearer("acp_at_not-a-token") }))).toBe("TOKEN_INVALID");
  });
});

describe("requireOperator and authenticate, as other routes use them", () => {
  const routes = () =>
    new Elysia()
      .get("/op/:mint", async ({ request, params }) => ({ operator: (await requireOperator({ auth: p.auth, sql: p.engines.sql }, request, params.mint)).address }))
      .get("/who", async ({ request }) => ({ who: await p.auth.authenticate(request) }));

  test("the creator passes; another wallet is 403 NOT_OPERATOR; no token 401; unknown agent 404", async () => {
    const creator = testWallet();
    const stranger = testWallet();
    const mint = testWallet().address;
    await p.engines.sql`INSERT INTO agents (mint, creator, vault, config) VALUES (${mint}, ${creator.address}, ${testWallet().address}, ${CONFIG})`;
    const app = createApp({ log: createLogger("error"), ready: async () => true, data: null, ingest: null }).use(routes());
    const callApp = callerOf(app);
    const call = async (path: string, headers: Record<string, string> = {}) => {
      const { status, body } = await callApp(path, { headers });
      return { status, body };
    };
    const mine = await signIn(p.call, creator);
    const theirs = await signIn(p.call, stranger);
    expect(await call(`/op/${mint}`, bearer(mine.accessToken))).toEqual({ status: 200, body: { operator: creator.address } });
    const forbidden = await call(`/op/${mint}`, bearer(theirs.accessToken));
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, "NOT_OPERATOR"]);
    const anonymous = await call(`/op/${mint}`);
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, "AUTH_REQUIRED"]);
    const unknown = await call(`/op/${testWallet().address}`, bearer(mine.accessToken));
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "NOT_FOUND"]);
    expect(await call("/who", bearer(mine.accessToken))).toEqual({ status: 200, body: { who: { address: creator.address } } });
    expect(await call("/who")).toEqual({ status: 200, body: { who: null } });
    expect(await call("/who", bearer("acp_at_nope"))).toEqual({ status: 200, body: { who: null } });
  });
});

