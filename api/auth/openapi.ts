/**
 * Wallet sign-in in the OpenAPI document (api/openapi): nonce, verify, refresh, logout.
 */
import { SIGNED_IN_ERRORS, type RouteDoc } from "../openapi/route";
import { LogoutBody, NonceBody, RefreshBody, VerifyBody } from "./model";
import { NonceIssued, SignInInput, SignedOut, TokenPair } from "./responses";

const tag = "Wallet sign-in";
const WALLET = "7YttLkHDoNj9wyDur5pM1ejNaAvT9X4eqaYcHQqtj2G5";

export const authSchemas = { NonceIssued, SignInInput, TokenPair };

export const authRoutes: RouteDoc[] = [
  {
    method: "post", path: "/v1/auth/nonce", operationId: "createSignInNonce", tag, summary: "A sign-in message for a wallet to sign",
    description: "The nonce is single use and valid 5 minutes. At most `AUTH_NONCE_RATE_PER_MINUTE` per client address.",
    body: { schema: NonceBody, example: { address: WALLET } },
    responses: { 200: { description: "the message to sign", schema: NonceIssued } },
    errors: { 400: ["VALIDATION_ERROR"], 429: ["RATE_LIMITED"] },
  },
  {
    method: "post", path: "/v1/auth/verify", operationId: "verifySignIn", tag, summary: "Sign in with the signed message",
    description: "`signature` is the wallet's 64-byte ed25519 signature of the message's exact UTF-8 bytes, in base58.",
    body: { schema: VerifyBody, example: { message: "agents.example wants you to sign in with your Solana account:\n…", signature: "3yZe7d…(base58)" } },
    responses: { 200: { description: "the session's tokens", schema: TokenPair } },
    errors: {
      400: ["VALIDATION_ERROR"],
      401: ["MESSAGE_INVALID", "DOMAIN_MISMATCH", "CHAIN_MISMATCH", "NONCE_INVALID", "NONCE_USED", "MESSAGE_EXPIRED", "MESSAGE_NOT_YET_VALID", "BAD_SIGNATURE"],
      429: ["RATE_LIMITED"],
    },
  },
  {
    method: "post", path: "/v1/auth/refresh", operationId: "refreshSession", tag, summary: "Exchange a refresh token for a new pair",
    description: "Rotation: the refresh token is spent; presenting it again revokes the session.",
    body: { schema: RefreshBody, example: { refreshToken: "acp_rt_4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" } },
    responses: { 200: { description: "the new tokens", schema: TokenPair } },
    errors: { 400: ["VALIDATION_ERROR"], 401: ["TOKEN_INVALID", "TOKEN_EXPIRED", "TOKEN_REVOKED", "REFRESH_TOKEN_REUSED"], 429: ["RATE_LIMITED"] },
  },
  {
    method: "post", path: "/v1/auth/logout", operationId: "signOut", tag, security: "bearerOptional", summary: "End the session",
    description: "With `Authorization: Bearer <accessToken>` (an expired one works) or `{ refreshToken }`: every token of the session stops working.",
    body: { schema: LogoutBody, required: false, example: {} },
    responses: { 200: { description: "signed out", schema: SignedOut } },
    errors: { 400: ["VALIDATION_ERROR"], 401: SIGNED_IN_ERRORS, 429: ["RATE_LIMITED"] },
  },
];
