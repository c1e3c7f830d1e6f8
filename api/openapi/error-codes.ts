/**
 * Every error code the API answers with, and what it means: the OpenAPI document lists
 * each route's codes under its statuses with these words. A route's codes are named in
 * its description (`errors`), so a code used there must be one of these.
 */
export const ERROR_CODES = {
  // every API
  VALIDATION_ERROR: "a parameter or body field is missing or wrong; `details` lists every problem at once",
  NOT_FOUND: "no such resource (an unknown or hidden agent, coin or file)",
  RATE_LIMITED: "too many requests from this client (or API key); wait for Retry-After",
  INTERNAL: "something went wrong on the platform's side; it has been logged",
  // public reads
  PRICE_UNAVAILABLE: "no SOL/USD price source answers right now; retry after Retry-After",
  UPSTREAM_ERROR: "the chain (RPC) or another service could not be read, or none is configured (503); retry",
  CURVE_COMPLETE: "the bonding curve is full and waits for migration; quotes resume on DAMM v2",
  SWAP_DISABLED: "the DAMM v2 pool takes no swaps yet",
  // sign-in and signed-in routes
  AUTH_REQUIRED: "no access token: sign in and send `Authorization: Bearer <accessToken>`",
  TOKEN_INVALID: "the token is not one this platform issued (or not of this kind)",
  TOKEN_EXPIRED: "the token has expired; refresh it, or sign in again",
  TOKEN_REVOKED: "the session was signed out (or revoked after a refresh token was reused)",
  REFRESH_TOKEN_REUSED: "this refresh token was exchanged before; the session is revoked, sign in again",
  MESSAGE_INVALID: "the signed text is not a sign-in message this platform reads",
  DOMAIN_MISMATCH: "the message signs in to another domain or URI",
  CHAIN_MISMATCH: "the message is for another chain than this platform's",
  MESSAGE_EXPIRED: "the message (or its nonce's 5 minutes) has expired; ask for a new nonce",
  MESSAGE_NOT_YET_VALID: "the message's Not Before is in the future",
  NONCE_INVALID: "the nonce was never issued, or issued to another wallet",
  NONCE_USED: "the nonce has signed in once already",
  BAD_SIGNATURE: "a signature does not verify for the message or transaction",
  NOT_OPERATOR: "only the wallet that launched the agent may do this",
  FIREWALL_BLOCKED: "the safety filter blocked a text field (`details.field`)",
  TOO_MANY_DIRECTIVES: "the agent has the most active directives it may have; archive one first",
  AGENT_NOT_RUNNING: "the agent is not awake (`details.state`)",
  NO_FUEL: "the agent's budget is used up",
  CHECK_TOO_SOON: "one check every 2 minutes per agent; wait for Retry-After",
  PROPOSAL_DECIDED: "the proposal was decided already (`details.status`)",
  PROPOSAL_EXPIRED: "the proposal expired before a decision",
  // treasury actions (airdrops, contests, buybacks): api/errors/treasury.ts
  REF_REUSED: "this `ref` was used by this agent for a different request; send the same body again, or a new ref",
  CAPABILITY_MISSING: "the agent's template lacks the capability this action needs (`details { capability, template }`)",
  VAULT_KEY_MISSING: "the platform does not hold the key of the agent's vault, so it cannot pay from it",
  NOT_COVERED: "the vault's claimed fees, less what other actions reserved or spent, do not cover it (`details { askedLamports, claimedLamports, committedLamports, availableLamports }`)",
  CONTEST_NOT_OPEN: "the contest can no longer be cancelled: it ended (its draw is being fixed) or moved on (`details { status, endsAt }`)",
  // webhook
  UNAUTHORIZED: "the Authorization header is not the webhook secret",
  UNAVAILABLE: "nothing was stored (decoder or storage unavailable); retry",
  OVERLOADED: "storage is behind; nothing was stored, retry after Retry-After",
  // Launch API
  API_KEY_REQUIRED: "send the API key as `Authorization: Bearer <API_KEY>`",
  API_KEY_INVALID: "the API key is not valid",
  API_KEY_REVOKED: "the API key has been revoked",
  API_KEY_SCOPE: "the API key lacks the launch permission",
  IDEMPOTENCY_KEY_REQUIRED: "send an Idempotency-Key header (8-128 letters, digits, - _ . :)",
  IDEMPOTENCY_KEY_REUSED: "this Idempotency-Key was used with a different body",
  IMAGE_URL_REFUSED: "image.url is not a public https:// address",
  IMAGE_TOO_LARGE: "the image is over 5 MB",
  IMAGE_NOT_AN_IMAGE: "the link is not a PNG, JPEG, GIF or WebP of 16-4096 px a side",
  IMAGE_UNREACHABLE: "the image could not be downloaded",
  FIRST_BUY_OVER_CAP: "a first buy is at most 2 SOL (`details.maxLamports`)",
  FIRST_BUY_NOT_SUPPORTED: "a coin paired with a stock takes no first buy",
  TX_MISMATCH: "the signed transaction is not the one built",
  MISSING_SIGNATURE: "the creator has not signed the transaction",
  INVALID_TRANSACTION: "signedTransaction is not a base64 transaction",
  LAUNCH_NOT_FOUND: "no launch with that id made with this API key",
  LAUNCH_IN_PROGRESS: "the launch is still being prepared; retry in a few seconds",
  LAUNCH_QUOTA: "this API key made its daily number of launches; wait for Retry-After",
  NOT_BUILT: "nothing to sign yet; retry the create with the same Idempotency-Key",
  EXPIRED: "the transaction expired before it landed; rebuild",
  STILL_VALID: "a rebuild is not needed: the current transaction can still land (Retry-After)",
  ALREADY_SUBMITTED: "a rebuild is not needed: the transaction was submitted",
  ALREADY_LAUNCHED: "a rebuild is not needed: the launch is confirmed",
  SEND_FAILED: "the network rejected the transaction (usually too little SOL); fund the wallet, then rebuild",
  LAUNCH_FAILED: "the transaction failed on-chain; start a new launch",
  SIGNER_UNAVAILABLE: "the launch signer or RPC is not configured or not available; retry with the same key",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
