/**
 * The airdrop and buyback routes in the OpenAPI document (api/openapi): the public reads (the
 * lists, the snapshot an airdrop used) and the operator's requests. Order of checks on the
 * operator's routes: sign-in (401), the path (400), the agent (404), its operator (403), the body
 * (400), then the action's own refusals (api/README.md, "Treasury actions" and "Buybacks").
 */
import { READ_ERRORS, type RouteDoc } from "../openapi/route";
import { HolderSnapshot, PaymentBatch, PaymentTransaction, TREASURY_TAG as tag, treasuryActionErrors } from "../openapi/treasury";
import { AirdropBody, AirdropsQuery, MintAirdropParams, MintParam } from "./model";
import { BuybackBody, BuybacksQuery } from "./buybacks";
import * as r from "./responses";

export const treasurySchemas = {
  Airdrop: r.Airdrop, AirdropPreview: r.AirdropPreview, HolderSnapshot, PaymentBatch, PaymentTransaction, VaultRoom: r.VaultRoom, Buyback: r.Buyback,
};

const AIRDROP = `\`lamports\` (a decimal string; a JSON integer is accepted) from the minimum payout (890,880) to 2 SOL; \`mode\` preview | execute \
(default execute); \`ref\` 1-128 letters, digits, \`- _ . :\` (generated when left out). Every problem of the body is in one 400. \
preview (200): the holders and their shares from a fresh snapshot, and whether execute would be covered; nothing is written or paid. \
execute (202): the snapshot is stored, the airdrop, its spend reservation and its batches are written at once; the \`agents\` process pays them. \
A \`ref\` this agent used with the same body answers the same and pays nothing more (409 REF_REUSED with another body). \
Refusals of execute, in order: CAPABILITY_MISSING (\`reward.airdrop\`), VAULT_KEY_MISSING, NOT_COVERED, 503 without a chain, \
502 when the holders cannot be read, NO_ELIGIBLE_HOLDERS (nobody can be paid the minimum payout); preview refuses only CAPABILITY_MISSING and 503/502. \
Shares are pro rata by balance; shares below the minimum payout are folded into the others.`;

const BUYBACK = `\`lamports\` (a decimal string; a safe JSON integer is accepted) 1 to 500,000,000 (0.5 SOL); \`slippageBps\` 0-10,000 (default 100); \
\`burn\` (default false): burn what the swap received; \`ref\` 1-128 of \`A-Z a-z 0-9 . _ : -\` (default: a new one). Every problem of the body is in one 400. \
The same request with its \`ref\` again answers \`queued: false\` and queues nothing; another request with it is 409 REF_REUSED. \
Then, in order, before anything is written: VAULT_KEY_MISSING; the pool's read (503 without a chain, 502 when it fails); NOT_SOL_QUOTED (a stock-paired coin); \
CURVE_COMPLETE (the curve is full and waits to migrate), SWAP_DISABLED (a DAMM v2 pool not taking swaps yet) or 400 on \`lamports\` (more than the pool can fill); \
then NOT_COVERED, checked with the reservation it makes. The \`agents\` process swaps SOL for the coin on its current venue, signed by the vault, then burns.`;

export const treasuryRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/daemons/:mint/airdrops", operationId: "listDaemonAirdrops", tag, summary: "An agent's airdrops, newest first",
    description: "Each with its snapshot and its batches of transfers with their transactions. `cursor` is `nextCursor` of the page before.",
    params: MintParam, query: AirdropsQuery,
    responses: { 200: { description: "a page of airdrop records", schema: r.AirdropPage } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "post", path: "/v1/daemons/:mint/airdrops", operationId: "createDaemonAirdrop", tag, security: "bearer", summary: "Preview or pay an airdrop to the holders (operator)",
    description: AIRDROP,
    params: MintParam,
    body: { schema: AirdropBody, example: { lamports: "500000000", mode: "execute", ref: "holders-2026-48" } },
    responses: {
      200: { description: "the preview (mode preview): shares from a fresh snapshot; nothing moves", schema: r.AirdropPreview },
      202: { description: "queued (mode execute), or found again by its ref", schema: r.AirdropQueued, example: { ref: "holders-2026-48", queued: true } },
    },
    errors: treasuryActionErrors({ 409: ["NO_ELIGIBLE_HOLDERS"], 502: ["UPSTREAM_ERROR"] }),
  },
  {
    method: "get", path: "/v1/daemons/:mint/airdrops/:id/snapshot", operationId: "getDaemonAirdropSnapshot", tag, summary: "The holders an airdrop used",
    description: "The stored snapshot, holders sorted by owner; `snapshotHash` can be recomputed from them. It never changes.",
    params: MintAirdropParams,
    responses: { 200: { description: "the holder snapshot", schema: HolderSnapshot } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/daemons/:mint/buybacks", operationId: "listDaemonBuybacks", tag, summary: "An agent's buybacks, newest first",
    description: "Amount, venue, status, the swap's and the burn's transactions, tokens received and burned. `cursor` is `nextCursor` of the page before.",
    params: MintParam, query: BuybacksQuery,
    responses: { 200: { description: "a page of buyback records", schema: r.BuybackPage } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "post", path: "/v1/daemons/:mint/buybacks", operationId: "createDaemonBuyback", tag, security: "bearer", summary: "Buy back (and burn) the agent's coin with its vault's claimed fees (operator)",
    description: BUYBACK,
    params: MintParam,
    body: { schema: BuybackBody, example: { lamports: "100000000", slippageBps: 100, burn: true, ref: "buyback-2026-48" } },
    responses: { 202: { description: "queued, or found again by its ref (`queued: false`)", schema: r.BuybackQueued, example: { ref: "buyback-2026-48", queued: true } } },
    errors: treasuryActionErrors({ 409: ["NOT_SOL_QUOTED", "CURVE_COMPLETE", "SWAP_DISABLED"], 502: ["UPSTREAM_ERROR"] }, { capability: false }),
  },
];
