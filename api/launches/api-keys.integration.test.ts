/**
 * API keys on a real embedded Postgres: create, authenticate, the stored hash, every
 * refusal of the spec (401 API_KEY_REQUIRED / INVALID / REVOKED, 403 API_KEY_SCOPE), the
 * revocation window of the cache, last_used_at throttling, list and revoke.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Elysia } from "elysia";
import { testEngines } from "../../infra/testing/engines";
import { createLogger } from "../../infra/log";
import { ApiError, errorHandler } from "../errors";
import { ApiKeyInputError, createApiKey, createApiKeyAuth, listApiKeys, revokeApiKey } from "./api-keys";

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error("expected a refusal, got success");
}

const name = (s: string) => `${s}-${crypto.randomUUID().slice(0, 8)}`;

describe("API keys", () => {
  test("create → authenticate; only the SHA-256 of the key is stored, the key appears nowhere", async () => {
    const { sql } = await testEngines();
    const { key, record } = await createApiKey(sql, { name: name("ok"), scopes: ["launch", "launch"] });
    expect(key).toMatch(/^acp_live_[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(record).toMatchObject({ scopes: ["launch"], lastUsedAt: null, revokedAt: null });
    expect(record.prefix).toBe(key.slice(0, 17));
    expect(record.createdAt).toBeInstanceOf(Date);

    const auth = createApiKeyAuth(sql);
    const who = await auth.authenticate(`Bearer ${key}`, "launch");
    expect(who.id).toBe(record.id);
    expect((await auth.authenticate(`bearer  ${key}`, "launch")).id).toBe(record.id); // scheme is case-insensitive

    const [row] = await sql`SELECT key_hash, row_to_json(k)::text AS everything FROM api_keys k WHERE id = ${record.id}`;
    expect(Buffer.from(row!.key_hash).equals(createHash("sha256").update(key).digest())).toBe(true);
    const secretPart = key.slice(record.prefix.length);
    expect(row!.everything).not.toContain(secretPart);
    expect(row!.everything).not.toContain(Buffer.from(key).toString("hex"));
    const dump = (await sql`SELECT string_agg(row_to_json(k)::text, '') AS t FROM api_keys k`)[0]!.t as string;
    expect(dump).not.toContain(secretPart);
  });

  test("missing or non-Bearer → 401 API_KEY_REQUIRED; unknown → 401 API_KEY_INVALID; never echoes the key", async () => {
    const { sql } = await testEngines();
    const auth = createApiKeyAuth(sql);
    for (const header of [null, undefined, "", "Basic x", "Bearer", "Bearer ", "Token acp_live_x", "Bearer a b"]) {
      const err = await refusal(auth.authenticate(header, "launch"));
      expect({ status: err.status, code: err.code, headers: err.headers }).toEqual({ status: 401, code: "API_KEY_REQUIRED", headers: { "www-authenticate": "Bearer" } });
    }
    const { key } = await createApiKey(sql, { name: name("real"), scopes: ["launch"] });
    const unknown = key.slice(0, -4) + (key.endsWith("1111") ? "2222" : "1111"); // well-formed, never issued
    for (const wrong of [unknown, "acp_live_short", "not-a-key", key + "x"]) {
      const err = await refusal(auth.authenticate(`Bearer ${wrong}`, "launch"));
      expect({ status: err.status, code: err.code, headers: err.headers }).toEqual({ status: 401, code: "API_KEY_INVALID", headers: { "www-authenticate": "Bearer" } });
      expect(`${err.message} ${JSON.stringify(err.details ?? null)}`).not.toContain(wrong);
    }
  });

  test("through the app's error handler: the spec's envelope and WWW-Authenticate", async () => {
    const { sql } = await testEngines();
    const auth = createApiKeyAuth(sql);
    const app = new Elysia()
      .use(errorHandler(createLogger("error")))
      .get("/v1/launches/x", async ({ request }) => ({ key: (await auth.authenticate(request.headers.get("authorization"), "launch")).prefix }));
    const { key, record } = await createApiKey(sql, { name: name("app"), scopes: ["launch"] });
    const ok = await app.handle(new Request("http://localhost/v1/launches/x", { headers: { authorization: `Bearer ${key}` } }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ key: record.prefix });
    const missing = await app.handle(new Request("http://localhost/v1/launches/x"));
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe("Bearer");
    expect(await missing.json()).toEqual({ error: { code: "API_KEY_REQUIRED", message: expect.any(String) } });
  });

  test("a key without the launch scope → 403 API_KEY_SCOPE; bad names and scopes are refused at creation", async () => {
    const { sql } = await testEngines();
    const { key } = await createApiKey(sql, { name: name("noscope"), scopes: [] });
    const err = await refusal(createApiKeyAuth(sql).authenticate(`Bearer ${key}`, "launch"));
    expect({ status: err.status, code: err.code }).toEqual({ status: 403, code: "API_KEY_SCOPE" });
    await expect(createApiKey(sql, { name: name("x"), scopes: ["admin"] })).rejects.toBeInstanceOf(ApiKeyInputError);
    await expect(createApiKey(sql, { name: "  ", scopes: ["launch"] })).rejects.toBeInstanceOf(ApiKeyInputError);
  });

  test("revoke by prefix: refused with API_KEY_REVOKED once the cache window (cacheMs) has passed", async () => {
    const { sql } = await testEngines();
    const { key, record } = await createApiKey(sql, { name: name("revoke"), scopes: ["launch"] });
    let clock = Date.now();
    const auth = createApiKeyAuth(sql, { cacheMs: 300, now: () => clock });
    await auth.authenticate(`Bearer ${key}`, "launch");
    const revoked = await revokeApiKey(sql, record.prefix);
    expect(revoked).toMatchObject({ id: record.id, revokedAt: expect.any(Date) });
    // within the window this process still trusts its cached lookup (documented: at most cacheMs)
    expect((await auth.authenticate(`Bearer ${key}`, "launch")).id).toBe(record.id);
    clock += 350;
    const err = await refusal(auth.authenticate(`Bearer ${key}`, "launch"));
    expect({ status: err.status, code: err.code, headers: err.headers }).toEqual({ status: 401, code: "API_KEY_REVOKED", headers: { "www-authenticate": "Bearer" } });
    // a process that had not cached it refuses at once
    expect((await refusal(createApiKeyAuth(sql).authenticate(`Bearer ${key}`, "launch"))).code).toBe("API_KEY_REVOKED");
    // revoking again keeps the first time; unknown ids and prefixes give null
    expect((await revokeApiKey(sql, record.id))!.revokedAt).toEqual(revoked!.revokedAt);
    expect(await revokeApiKey(sql, "acp_live_nothere1")).toBeNull();
    expect(await revokeApiKey(sql, crypto.randomUUID())).toBeNull();
  });

  test("a prefix that clashes with an existing key is retried with a fresh key; a bad name is not retried", async () => {
    const { sql } = await testEngines();
    const a = new Uint8Array(crypto.getRandomValues(new Uint8Array(32)));
    const b = new Uint8Array(crypto.getRandomValues(new Uint8Array(32)));
    const first = await createApiKey(sql, { name: name("clash"), scopes: ["launch"] }, () => a);
    const draws = [a, a, b];
    let drawn = 0;
    const second = await createApiKey(sql, { name: name("clash"), scopes: ["launch"] }, () => draws[drawn++]!);
    expect(drawn).toBe(3);
    expect(second.record.prefix).not.toBe(first.record.prefix);
    await expect(createApiKey(sql, { name: name("clash"), scopes: ["launch"] }, () => a)).rejects.toMatchObject({ code: "23505" });
  });

  test("last_used_at is written at most once per touch interval; list shows every key without secrets", async () => {
    const { sql } = await testEngines();
    const { key, record } = await createApiKey(sql, { name: name("touch"), scopes: ["launch"] });
    const lastUsed = async () => (await sql`SELECT last_used_at FROM api_keys WHERE id = ${record.id}`)[0]!.last_used_at as Date | null;
    let clock = Date.now();
    const auth = createApiKeyAuth(sql, { cacheMs: 50, touchEveryMs: 400, now: () => clock });
    await auth.authenticate(`Bearer ${key}`, "launch");
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    for (let i = 0; i < 5; i++) await auth.authenticate(`Bearer ${key}`, "launch");
    clock += 100; // past the cache, not past the touch interval
    await auth.authenticate(`Bearer ${key}`, "launch");
    expect(await lastUsed()).toEqual(first);
    clock += 450;
    // Postgres keeps its own throttle on its own clock: the last write is made to look a second old
    await sql`UPDATE api_keys SET last_used_at = last_used_at - interval '1 second' WHERE id = ${record.id}`;
    await auth.authenticate(`Bearer ${key}`, "launch");
    expect((await lastUsed())!.getTime()).toBeGreaterThan(first!.getTime());

    const listed = (await listApiKeys(sql)).find((k) => k.id === record.id)!;
    expect(Object.keys(listed).sort()).toEqual(["createdAt", "id", "lastUsedAt", "name", "prefix", "revokedAt", "scopes"]);
    expect(listed).toMatchObject({ name: record.name, prefix: record.prefix, scopes: ["launch"], revokedAt: null, lastUsedAt: expect.any(Date) });
    expect(JSON.stringify(await listApiKeys(sql))).not.toContain(key.slice(record.prefix.length));
  });
});
