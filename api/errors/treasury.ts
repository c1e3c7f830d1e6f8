/**
 * The refusals every treasury action shares (airdrops, contests, buybacks), in the API's
 * envelope. The spec gives no codes for these ("Codes for other refusals of operator
 * endpoints: not shown"); these are ours, documented in api/README.md. A request over an
 * action's fixed cap (2 SOL, 0.5 SOL, ...) is a 400 VALIDATION_ERROR on its field.
 */
import { ApiError } from "./index";
import type { Capability } from "../daemons/catalog";
import type { ErrorCode } from "../openapi/error-codes";

/**
 * The codes of the refusals below by status, for a treasury action's route description (api/openapi/treasury.ts
 * `treasuryActionErrors`). `chainFailed` (502) is left out: only an action that reads the chain while it answers
 * (an airdrop's holders, a buyback's pool) adds `{ 502: ["UPSTREAM_ERROR"] }`.
 */
export const TREASURY_REFUSALS = {
  409: ["REF_REUSED", "CAPABILITY_MISSING", "VAULT_KEY_MISSING", "NOT_COVERED"],
  503: ["UPSTREAM_ERROR"],
} as const satisfies Partial<Record<number, readonly ErrorCode[]>>;

/** 409: the agent's template lacks the capability the action needs (like NOT_INFLUENCER). */
export const capabilityMissing = (capability: Capability, template: string) =>
  new ApiError(409, "CAPABILITY_MISSING", `the ${template} template cannot do this: it lacks the ${capability} capability`, { capability, template });

/** 409: the vault's claimed fees, less what other actions reserved or spent, do not cover it. */
export const notCovered = (asked: bigint, room: { claimedLamports: bigint; committedLamports: bigint; availableLamports: bigint }) =>
  new ApiError(409, "NOT_COVERED", `the vault's claimed fees cover ${room.availableLamports} more lamports, not ${asked}`, {
    askedLamports: asked.toString(),
    claimedLamports: room.claimedLamports.toString(),
    committedLamports: room.committedLamports.toString(),
    availableLamports: room.availableLamports.toString(),
  });

/** 409: a `ref` already used by this agent for a different request. */
export const refReused = (ref: string) =>
  new ApiError(409, "REF_REUSED", `ref ${ref} was already used for a different request; send the same body to get its answer, or a new ref`);

/** 409: the platform does not hold the vault's key (an agent not launched through the Launch API), so it cannot sign for it. */
export const vaultKeyMissing = (mint: string) =>
  new ApiError(409, "VAULT_KEY_MISSING", `the platform does not hold the key of ${mint}'s vault, so it cannot pay from it`);

/** 503: no Solana RPC configured (snapshots and payments need the chain). */
export const chainUnavailable = () => new ApiError(503, "UPSTREAM_ERROR", "this deployment has no Solana RPC configured; treasury actions need the chain");

/** 502: the RPC failed while reading the chain. */
export const chainFailed = (what: string, err: unknown) => new ApiError(502, "UPSTREAM_ERROR", `${what}: the Solana RPC failed (${(err as Error)?.message ?? String(err)})`);
