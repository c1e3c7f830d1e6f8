/**
 * Sign-In With Solana and the sessions it opens.
 *
 * - issueNonce: a single-use nonce for one wallet, valid 5 minutes, stored in Postgres, and
 *   the sign-in message naming it (siws.ts).
 * - verify: the message must be one of ours (domain, URI, chain, version), in its time
 *   window, signed by the address it names (ed25519 through node:crypto, as launches verify
 *   transactions); then the nonce is consumed and the session opened in one transaction.
 * - refresh: rotation. The refresh token is exchanged for a new pair; the old one is kept
 *   as spent, and presenting it again revokes the whole session (it has leaked, or two
 *   clients share it).
 * - logout: revokes the session; every token of it stops working at once.
 * - session: what an access token is worth, read from Postgres on every request (no cache:
 *   a revoked session stops working on the next request, in every api replica).
 *
 * Tokens are opaque (32 random bytes); only their SHA-256 is stored, and no token is ever
 * logged. Times come from `now` (tests move it) and are compared in SQL as parameters.
 */
import { createHash, randomBytes } from "node:crypto";
import bs58 from "bs58";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import { ApiError } from "../errors";
import { verifyEd25519 } from "../../infra/solana-tx/verify";
import { parseSignInMessage, signInMessageText, type SignInFields } from "./siws";
import { ACCESS_PREFIX, REFRESH_PREFIX, isTokenOf } from "./model";

export type SignInSettings = {
  /** the domain (host[:port]) the message names: the site a wallet shows it for */
  domain: string;
  /** the URI the message names */
  uri: string;
  chainId: "mainnet" | "devnet";
  accessTtlMs: number;
  refreshTtlMs: number;
};

export type AuthServiceDeps = { sql: Sql; log: Logger; settings: SignInSettings; now?: () => Date };

/** How long a nonce (and the message naming it) can be signed in with. */
export const NONCE_TTL_MS = 5 * 60_000;
/** How long used and expired nonces and ended sessions are kept before the sweep deletes them (a replay within it is told apart). */
const KEEP_SPENT_MS = 24 * 3_600_000;

export type TokenPair = { accessToken: string; refreshToken: string; expiresAt: string; refreshExpiresAt: string; address: string };
export type Session = { sessionId: string; address: string; expiresAt: Date };

/** 401 with the spec's envelope and RFC 6750's challenge. */
export const unauthorized = (code: string, message: string) =>
  new ApiError(401, code, message, undefined, { "www-authenticate": code === "AUTH_REQUIRED" ? "Bearer" : 'Bearer error="invalid_token"' });

const sha256 = (token: string) => createHash("sha256").update(token, "utf8").digest();
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const isoMs = (s: string | undefined) => (s !== undefined && ISO_TIME.test(s) ? Date.parse(s) : NaN);

export function createAuthService(deps: AuthServiceDeps) {
  const { sql, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const log = deps.log;
  const statement = `Sign in to ${settings.domain} with this wallet. Signing costs nothing and sends no transaction.`;
  let sweptAt = 0;

  /** Deletes nonces and sessions long past use, at most once a minute (a failure only delays it). */
  async function sweep(t: Date) {
    if (t.getTime() - sweptAt < 60_000) return;
    sweptAt = t.getTime();
    const before = new Date(t.getTime() - KEEP_SPENT_MS);
    try {
      await sql`DELETE FROM auth_nonces WHERE expires_at < ${before}`;
      await sql`DELETE FROM auth_sessions WHERE refresh_expires_at < ${before} OR revoked_at < ${before}`;
      // a token spent longer ago than a refresh token lives would be expired anyway: its reuse means nothing more
      await sql`DELETE FROM auth_spent_refresh_tokens WHERE spent_at < ${new Date(t.getTime() - settings.refreshTtlMs)}`;
    } catch (err) {
      log.warn("sign-in sweep failed", { err: err as Error });
    }
  }

  function newPair(t: Date) {
    const accessToken = ACCESS_PREFIX + bs58.encode(randomBytes(32));
    const refreshToken = REFRESH_PREFIX + bs58.encode(randomBytes(32));
    return {
      accessToken,
      refreshToken,
      accessHash: sha256(accessToken),
      refreshHash: sha256(refreshToken),
      accessExpiresAt: new Date(t.getTime() + settings.accessTtlMs),
      refreshExpiresAt: new Date(t.getTime() + settings.refreshTtlMs),
    };
  }
  const answer = (p: ReturnType<typeof newPair>, address: string): TokenPair => ({
    accessToken: p.accessToken,
    refreshToken: p.refreshToken,
    expiresAt: p.accessExpiresAt.toISOString(),
    refreshExpiresAt: p.refreshExpiresAt.toISOString(),
    address,
  });

  /** The checks a message passes before its signature is looked at; the fields it signs in with. */
  function checkMessage(text: string, t: Date): SignInFields & { nonce: string } {
    const parsed = parseSignInMessage(text);
    if (!parsed.ok) throw unauthorized("MESSAGE_INVALID", `the message is not a sign-in message: ${parsed.problem}`);
    const f = parsed.fields;
    if (f.domain !== settings.domain) throw unauthorized("DOMAIN_MISMATCH", `the message signs in to ${JSON.stringify(f.domain)}, not to ${settings.domain}`);
    if (f.uri !== settings.uri) throw unauthorized("DOMAIN_MISMATCH", `the message's URI is ${JSON.stringify(f.uri ?? null)}, not ${settings.uri}`);
    if (f.chainId !== settings.chainId && f.chainId !== `solana:${settings.chainId}`)
      throw unauthorized("CHAIN_MISMATCH", `the message is for chain ${JSON.stringify(f.chainId ?? null)}; this platform runs on ${settings.chainId}`);
    if (f.version !== "1") throw unauthorized("MESSAGE_INVALID", `the message's version is ${JSON.stringify(f.version ?? null)}; only version 1 is known`);
    if (!bytesOf(f.address, 32)) throw unauthorized("MESSAGE_INVALID", "the message's address is not a base58 Solana address");
    if (!f.nonce) throw unauthorized("NONCE_INVALID", "the message has no nonce; ask POST /v1/auth/nonce for one");
    // the grammar's nonce (8+ letters and digits); anything else was never issued, and never reaches SQL
    if (!/^[A-Za-z0-9]{8,64}$/.test(f.nonce)) throw unauthorized("NONCE_INVALID", "the message's nonce is not one this platform issued");
    if (Number.isNaN(isoMs(f.issuedAt))) throw unauthorized("MESSAGE_INVALID", "the message's Issued At must be an ISO 8601 time");
    const expires = f.expirationTime === undefined ? Infinity : isoMs(f.expirationTime);
    if (Number.isNaN(expires)) throw unauthorized("MESSAGE_INVALID", "the message's Expiration Time must be an ISO 8601 time");
    if (expires <= t.getTime()) throw unauthorized("MESSAGE_EXPIRED", "the message has expired; ask for a new nonce and sign again");
    const notBefore = f.notBefore === undefined ? -Infinity : isoMs(f.notBefore);
    if (Number.isNaN(notBefore)) throw unauthorized("MESSAGE_INVALID", "the message's Not Before must be an ISO 8601 time");
    if (notBefore > t.getTime()) throw unauthorized("MESSAGE_NOT_YET_VALID", "the message is not valid yet (Not Before is in the future)");
    return { ...f, nonce: f.nonce };
  }

  return {
    async issueNonce(address: string) {
      const t = now();
      const nonce = bs58.encode(randomBytes(16));
      const expiresAt = new Date(t.getTime() + NONCE_TTL_MS);
      const fields = {
        domain: settings.domain,
        address,
        statement,
        uri: settings.uri,
        version: "1",
        chainId: settings.chainId,
        nonce,
        issuedAt: t.toISOString(),
        expirationTime: expiresAt.toISOString(),
      };
      await sql`INSERT INTO auth_nonces (nonce, address, issued_at, expires_at) VALUES (${nonce}, ${address}, ${t}, ${expiresAt})`;
      await sweep(t);
      // signInInput: the Wallet Standard's SolanaSignInInput, for wallets that build the same text themselves (signIn)
      return { nonce, message: signInMessageText(fields), expiresAt: expiresAt.toISOString(), signInInput: fields };
    },

    async verify(body: { message: string; signature: string }): Promise<TokenPair> {
      const t = now();
      const f = checkMessage(body.message, t);
      const signer = bytesOf(f.address, 32)!;
      if (!verifyEd25519(signer, new TextEncoder().encode(body.message), bytesOf(body.signature, 64)!))
        throw unauthorized("BAD_SIGNATURE", "the signature is not the message's address signing this message");
      const pair = newPair(t);
      await sql.begin(async (tx) => {
        const used = await tx`
          UPDATE auth_nonces SET used_at = ${t}
          WHERE nonce = ${f.nonce} AND address = ${f.address} AND used_at IS NULL AND expires_at > ${t}
          RETURNING nonce`;
        if (!used.length) {
          const [row] = await tx<{ address: string; used_at: Date | null }[]>`SELECT address, used_at FROM auth_nonces WHERE nonce = ${f.nonce}`;
          if (!row || row.address !== f.address) throw unauthorized("NONCE_INVALID", "the message's nonce was not issued to this address; ask POST /v1/auth/nonce for one");
          if (row.used_at) throw unauthorized("NONCE_USED", "this nonce has already signed in once; ask for a new one");
          throw unauthorized("MESSAGE_EXPIRED", "the nonce has expired (5 minutes); ask for a new one and sign again");
        }
        await tx`
          INSERT INTO auth_sessions (address, access_hash, access_expires_at, refresh_hash, refresh_expires_at, created_at)
          VALUES (${f.address}, ${pair.accessHash}, ${pair.accessExpiresAt}, ${pair.refreshHash}, ${pair.refreshExpiresAt}, ${t})`;
      });
      log.info("signed in", { address: f.address });
      return answer(pair, f.address);
    },

    async refresh(refreshToken: string): Promise<TokenPair> {
      if (!isTokenOf(REFRESH_PREFIX, refreshToken)) throw unauthorized("TOKEN_INVALID", "this is not a refresh token");
      const t = now();
      const hash = sha256(refreshToken);
      const pair = newPair(t);
      // FOR UPDATE: of two refreshes with one token, the second waits, finds the token spent, and revokes
      type Outcome = { ok: true; address: string } | { ok: false; error: "TOKEN_INVALID" | "TOKEN_REVOKED" | "TOKEN_EXPIRED" } | { ok: false; error: "REFRESH_TOKEN_REUSED"; address: string | undefined };
      const outcome = await sql.begin(async (tx): Promise<Outcome> => {
        const [cur] = await tx<{ id: string; address: string; refresh_expires_at: Date; revoked_at: Date | null }[]>`
          SELECT id, address, refresh_expires_at, revoked_at FROM auth_sessions WHERE refresh_hash = ${hash} FOR UPDATE`;
        if (cur) {
          if (cur.revoked_at) return { ok: false, error: "TOKEN_REVOKED" };
          if (cur.refresh_expires_at.getTime() <= t.getTime()) return { ok: false, error: "TOKEN_EXPIRED" };
          await tx`INSERT INTO auth_spent_refresh_tokens (token_hash, session_id, spent_at) VALUES (${hash}, ${cur.id}, ${t})`;
          await tx`
            UPDATE auth_sessions SET access_hash = ${pair.accessHash}, access_expires_at = ${pair.accessExpiresAt},
              refresh_hash = ${pair.refreshHash}, refresh_expires_at = ${pair.refreshExpiresAt}, refreshed_at = ${t}
            WHERE id = ${cur.id}`;
          return { ok: true, address: cur.address };
        }
        const [spent] = await tx<{ session_id: string }[]>`SELECT session_id FROM auth_spent_refresh_tokens WHERE token_hash = ${hash}`;
        if (!spent) return { ok: false, error: "TOKEN_INVALID" };
        const [s] = await tx<{ address: string }[]>`
          UPDATE auth_sessions SET revoked_at = COALESCE(revoked_at, ${t}), revoked_reason = COALESCE(revoked_reason, 'refresh_reuse')
          WHERE id = ${spent.session_id} RETURNING address`;
        return { ok: false, error: "REFRESH_TOKEN_REUSED", address: s?.address };
      });
      if (!outcome.ok) {
        if (outcome.error === "REFRESH_TOKEN_REUSED") {
          log.warn("refresh token reused: session revoked", { address: outcome.address });
          throw unauthorized("REFRESH_TOKEN_REUSED", "this refresh token was already exchanged; the session is revoked, sign in again");
        }
        throw unauthorized(outcome.error, TOKEN_WORDS[outcome.error]);
      }
      return answer(pair, outcome.address);
    },

    /** Revokes the session of this access or refresh token (expired ones too); false when the token is unknown. */
    async logout(token: { accessToken?: string; refreshToken?: string }): Promise<boolean> {
      const t = now();
      const where = token.refreshToken !== undefined
        ? isTokenOf(REFRESH_PREFIX, token.refreshToken) ? sql`refresh_hash = ${sha256(token.refreshToken)}` : null
        : token.accessToken !== undefined && isTokenOf(ACCESS_PREFIX, token.accessToken) ? sql`access_hash = ${sha256(token.accessToken)}` : null;
      if (!where) return false;
      const rows = await sql`
        UPDATE auth_sessions SET revoked_at = COALESCE(revoked_at, ${t}), revoked_reason = COALESCE(revoked_reason, 'logout')
        WHERE ${where} RETURNING address`;
      if (rows[0]) log.info("signed out", { address: rows[0].address });
      return rows.length > 0;
    },

    /** The session an access token opens, or the 401 it earns. */
    async session(accessToken: string): Promise<Session> {
      if (!isTokenOf(ACCESS_PREFIX, accessToken)) throw unauthorized("TOKEN_INVALID", TOKEN_WORDS.TOKEN_INVALID);
      const [row] = await sql<{ id: string; address: string; access_expires_at: Date; revoked_at: Date | null }[]>`
        SELECT id, address, access_expires_at, revoked_at FROM auth_sessions WHERE access_hash = ${sha256(accessToken)}`;
      if (!row) throw unauthorized("TOKEN_INVALID", TOKEN_WORDS.TOKEN_INVALID);
      if (row.revoked_at) throw unauthorized("TOKEN_REVOKED", TOKEN_WORDS.TOKEN_REVOKED);
      if (row.access_expires_at.getTime() <= now().getTime()) throw unauthorized("TOKEN_EXPIRED", "the access token has expired; refresh it (POST /v1/auth/refresh)");
      return { sessionId: row.id, address: row.address, expiresAt: row.access_expires_at };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

const TOKEN_WORDS = {
  TOKEN_INVALID: "the token is not one this platform issued, or it has been replaced by a refresh",
  TOKEN_REVOKED: "the session has been signed out; sign in again",
  TOKEN_EXPIRED: "the refresh token has expired; sign in again",
};

function bytesOf(base58: string, length: number): Uint8Array | null {
  try {
    const b = bs58.decode(base58);
    return b.length === length ? b : null;
  } catch {
    return null;
  }
}
