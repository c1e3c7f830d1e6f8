/**
 * What wallet sign-in answers (valibot), for the OpenAPI document and the tests that
 * check real answers.
 */
import * as v from "valibot";
import { Address, IsoTime } from "../openapi/primitives";
import type { TokenPair as TokenPairType } from "./service";

export const SignInInput = v.object({
  domain: v.string(),
  address: Address,
  statement: v.optional(v.string()),
  uri: v.optional(v.string()),
  version: v.optional(v.string()),
  chainId: v.optional(v.string()),
  nonce: v.optional(v.string()),
  issuedAt: v.optional(IsoTime),
  expirationTime: v.optional(IsoTime),
  notBefore: v.optional(IsoTime),
  requestId: v.optional(v.string()),
  resources: v.optional(v.array(v.string())),
});

export const NonceIssued = v.object({
  nonce: v.string(),
  message: v.pipe(v.string(), v.metadata({ description: "the full Sign-In With Solana text to sign, as is" })),
  expiresAt: IsoTime,
  signInInput: v.pipe(SignInInput, v.metadata({ description: "the same fields as a Wallet Standard SolanaSignInInput, for wallets that write the text themselves" })),
});

const token = (prefix: string, what: string) => v.pipe(v.string(), v.startsWith(prefix), v.metadata({ description: what, examples: [`${prefix}4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi`] }));

export const TokenPair = v.object({
  accessToken: token("acp_at_", "send as `Authorization: Bearer <accessToken>`"),
  refreshToken: token("acp_rt_", "exchange at POST /v1/auth/refresh for a new pair (once)"),
  expiresAt: v.pipe(IsoTime, v.metadata({ description: "when the access token ends" })),
  refreshExpiresAt: IsoTime,
  address: Address,
});

export const SignedOut = v.object({ signedOut: v.literal(true) });

({}) as TokenPairType satisfies v.InferInput<typeof TokenPair>;
