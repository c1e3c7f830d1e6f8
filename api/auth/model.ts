/**
 * Request bodies of the sign-in routes (valibot; every problem in `details`, 400
 * VALIDATION_ERROR) and the shape of the two bearer tokens.
 */
import * as v from "valibot";
import bs58 from "bs58";

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const decodesTo = (bytes: number) => (s: string) => {
  try {
    return BASE58.test(s) && bs58.decode(s).length === bytes;
  } catch {
    return false;
  }
};

/** A wallet address: base58 of a 32-byte ed25519 public key. */
export const WalletAddress = v.pipe(v.string("must be a string"), v.check(decodesTo(32), "must be a base58 Solana address (32 bytes)"));

/** Longest sign-in message accepted; the one /auth/nonce hands out is about 400 characters. */
export const MAX_MESSAGE_CHARS = 2048;

export const NonceBody = v.strictObject({ address: WalletAddress });

export const VerifyBody = v.strictObject({
  message: v.pipe(
    v.string("must be a string"),
    v.minLength(1, "must not be empty"),
    v.maxLength(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`),
    // what a wallet signs is text: NUL or a lone surrogate is no sign-in message (and Postgres text refuses both)
    v.check((s) => !s.includes("\u0000") && s.isWellFormed(), "must not contain NUL or unpaired surrogate characters"),
  ),
  signature: v.pipe(v.string("must be a string"), v.check(decodesTo(64), "must be the 64-byte ed25519 signature in base58")),
});

const token = v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty"), v.maxLength(200, "must be at most 200 characters"));
export const RefreshBody = v.strictObject({ refreshToken: token });
/** Logout takes the access token from Authorization, or the refresh token here (an expired access token can still log out). */
export const LogoutBody = v.strictObject({ refreshToken: v.optional(token) });

/** Access and refresh tokens: a kind prefix and base58 of 32 random bytes, so neither can stand in for the other. */
export const ACCESS_PREFIX = "acp_at_";
export const REFRESH_PREFIX = "acp_rt_";
export const isTokenOf = (prefix: string, t: string) => t.startsWith(prefix) && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(t.slice(prefix.length));
