/**
 * The Launch API's answers, built from a launch row: the create/rebuild shape, the
 * status view and the submit answer (spec: "Launch (Launch API resource)").
 */
import type { LaunchRow } from "./store";

const agentUrl = (publicBaseUrl: string, mint: string | null) => (mint ? `${publicBaseUrl}/agents/${mint}` : null);
const height = (h: bigint | null) => (h === null ? null : Number(h));

/** The fields every launch answer starts with. */
const identity = (row: LaunchRow) => ({ id: row.id, status: row.status, creator: row.creator, mint: row.mint, vault: row.vault, pool: row.pool });

/** 201 create and rebuild: everything the integrator needs to have the creator sign. */
export function builtView(row: LaunchRow, publicBaseUrl: string) {
  return {
    ...identity(row),
    transaction: row.transaction ? Buffer.from(row.transaction).toString("base64") : null,
    lastValidBlockHeight: height(row.last_valid_block_height),
    expiresAt: row.expires_at?.toISOString() ?? null,
    quote: row.quote,
    firstBuy: row.first_buy_lamports === null ? null : { unit: "sol" as const, amount: row.first_buy_lamports.toString() },
    agentUrl: agentUrl(publicBaseUrl, row.mint),
  };
}

/** GET /v1/launches/{id}. */
export function statusView(row: LaunchRow, publicBaseUrl: string) {
  return {
    ...identity(row),
    signature: row.signature,
    lastValidBlockHeight: height(row.last_valid_block_height),
    agentUrl: agentUrl(publicBaseUrl, row.mint),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? "" } : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** POST /v1/launches/{id}/submit: 200 confirmed, 202 pending. */
export function submitView(row: LaunchRow, publicBaseUrl: string) {
  return { id: row.id, status: row.status, signature: row.signature, mint: row.mint, agentUrl: agentUrl(publicBaseUrl, row.mint) };
}
