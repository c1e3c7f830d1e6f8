/**
 * Launch API keys: create, list, revoke, and authenticate `Authorization: Bearer <key>`.
 *
 * A key is `acp_live_` + base58 of 32 random bytes. Only SHA-256 of the whole key is stored
 * (a fast hash is right for 256 random bits; see sql/postgres/0003_api_keys.sql) together with
 * its first characters (`prefix`, e.g. `acp_live_3kP9xQ2m`) so people can tell keys apart.
 * The key is returned once, by createApiKey, and never logged, stored or echoed anywhere else.
 */
import { createHash, randomBytes } from "node:crypto";
import bs58 from "bs58";
import type { Sql } from "../../infra/postgres";
import { ApiError } from "../errors";
import { retry } from "../../infra/retry";

export type ApiKeyRecord = { id: string; name: string; prefix: string; scopes: string[]; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };
export const SCOPES = ["launch"] as const;
export type Scope = (typeof SCOPES)[number];

const KEY_START = "acp_live_";
const PREFIX_LENGTH = KEY_START.length + 8; // 8 base58 characters (~47 bits) of the key are shown in listings
const KEY_FORMAT = /^acp_live_[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COLUMNS = ["id", "name", "prefix", "scopes", "created_at", "last_used_at", "revoked_at"];

/** A bad name or scope given to createApiKey (the CLI reports it as bad usage). */
export class ApiKeyInputError extends Error {}

const hashKey = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest();

function toRecord(row: Record<string, unknown>): ApiKeyRecord {
  return {
    id: row.id as string,
    name: row.name as string,
    prefix: row.prefix as string,
    scopes: [...(row.scopes as string[])],
    createdAt: row.created_at as Date,
    lastUsedAt: (row.last_used_at as Date | null) ?? null,
    revokedAt: (row.revoked_at as Date | null) ?? null,
  };
}

/** `randomKeyBytes` is for tests that need two keys to clash. */
export async function createApiKey(
  sql: Sql,
  o: { name: string; scopes: string[] },
  randomKeyBytes: () => Uint8Array = () => randomBytes(32),
): Promise<{ key: string; record: ApiKeyRecord }> {
  const name = o.name.trim();
  if (name.length < 1 || name.length > 100) throw new ApiKeyInputError("name must be 1-100 characters");
  const unknown = o.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new ApiKeyInputError(`unknown scope ${unknown.map((s) => JSON.stringify(s)).join(", ")} (known: ${SCOPES.join(", ")})`);
  const scopes = [...new Set(o.scopes)];
  // prefixes are unique (so revoke by prefix is never ambiguous); a clash is astronomically rare, a fresh key is tried anyway
  return retry(
    async () => {
      const key = KEY_START + bs58.encode(randomKeyBytes());
      const rows = await sql`
        INSERT INTO api_keys (name, prefix, key_hash, scopes)
        VALUES (${name}, ${key.slice(0, PREFIX_LENGTH)}, ${hashKey(key)}, ${scopes}::text[])
        RETURNING ${sql(COLUMNS)}`;
      return { key, record: toRecord(rows[0]!) };
    },
    { retries: 3, minDelayMs: 1, maxDelayMs: 10, shouldRetry: (err) => (err as { code?: string }).code === "23505" },
  );
}

export async function listApiKeys(sql: Sql): Promise<ApiKeyRecord[]> {
  const rows = await sql`SELECT ${sql(COLUMNS)} FROM api_keys ORDER BY created_at, id`;
  return rows.map(toRecord);
}

/** Revokes the key with this id or prefix (null when there is none). Revoking again keeps the first time. */
export async function revokeApiKey(sql: Sql, idOrPrefix: string): Promise<ApiKeyRecord | null> {
  const where = UUID.test(idOrPrefix) ? sql`id = ${idOrPrefix}::uuid` : sql`prefix = ${idOrPrefix}`;
  const rows = await sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE ${where} RETURNING ${sql(COLUMNS)}`;
  return rows[0] ? toRecord(rows[0]) : null;
}

const CHALLENGE = { "www-authenticate": "Bearer" };
const required = () => new ApiError(401, "API_KEY_REQUIRED", "send your API key as `Authorization: Bearer <API_KEY>`", undefined, CHALLENGE);
const invalid = () => new ApiError(401, "API_KEY_INVALID", "the API key is not valid", undefined, CHALLENGE);
const revoked = () => new ApiError(401, "API_KEY_REVOKED", "the API key has been revoked", undefined, CHALLENGE);
const lacksScope = (scope: Scope) => new ApiError(403, "API_KEY_SCOPE", `the API key lacks the ${scope} permission`);

export type ApiKeyAuthOptions = {
  /** how long a looked-up key is trusted without asking Postgres again; default 5000 ms */
  cacheMs?: number;
  /** least time between two last_used_at writes of one key; default 60000 ms */
  touchEveryMs?: number;
  now?: () => number;
};

/**
 * Reads `Authorization: Bearer <key>`; throws ApiError 401 API_KEY_REQUIRED (header missing or
 * not Bearer), 401 API_KEY_INVALID (unknown), 401 API_KEY_REVOKED, 403 API_KEY_SCOPE (lacks
 * `scope`). Never logs or echoes the key.
 *
 * Looked-up keys (valid or revoked) are cached in memory, by hash, for `cacheMs` (5 s): a key
 * revoked from another process (the CLI) stops working within 5 s. Unknown keys are not
 * cached. last_used_at is written at most once a minute per key (and the UPDATE itself skips
 * rows written less than a minute ago, so several processes do not multiply the writes).
 */
export function createApiKeyAuth(sql: Sql, opts: ApiKeyAuthOptions = {}): { authenticate(authorization: string | null | undefined, scope: Scope): Promise<ApiKeyRecord> } {
  const cacheMs = opts.cacheMs ?? 5_000;
  const touchEveryMs = opts.touchEveryMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const MAX_CACHED = 10_000;
  const cache = new Map<string, { record: ApiKeyRecord; until: number }>();
  const touchedAt = new Map<string, number>(); // key id -> when last_used_at was last written (or read)

  async function lookup(hash: Buffer): Promise<ApiKeyRecord | null> {
    const id = hash.toString("hex");
    const hit = cache.get(id);
    if (hit && hit.until > now()) return hit.record;
    cache.delete(id);
    const rows = await sql`SELECT ${sql(COLUMNS)} FROM api_keys WHERE key_hash = ${hash}`;
    if (!rows[0]) return null;
    const record = toRecord(rows[0]);
    if (record.lastUsedAt && !touchedAt.has(record.id)) touchedAt.set(record.id, record.lastUsedAt.getTime());
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(id, { record, until: now() + cacheMs });
    return record;
  }

  async function touch(record: ApiKeyRecord): Promise<void> {
    const t = now();
    if (t - (touchedAt.get(record.id) ?? -Infinity) < touchEveryMs) return;
    touchedAt.set(record.id, t);
    try {
      await sql`
        UPDATE api_keys SET last_used_at = now()
        WHERE id = ${record.id}::uuid AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => ${touchEveryMs / 1000}::float8))`;
      record.lastUsedAt = new Date(t);
    } catch {
      touchedAt.delete(record.id); // bookkeeping only: the request goes on; the next one tries again
    }
  }

  return {
    async authenticate(authorization, scope) {
      const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? "");
      if (!match) throw required();
      const key = match[1]!;
      if (!KEY_FORMAT.test(key)) throw invalid();
      const record = await lookup(hashKey(key));
      if (!record) throw invalid();
      if (record.revokedAt) throw revoked();
      if (!record.scopes.includes(scope)) throw lacksScope(scope);
      await touch(record);
      return { ...record, scopes: [...record.scopes] };
    },
  };
}
