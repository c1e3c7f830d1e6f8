/**
 * What the Launch API answers (valibot): the spec's Launch resource in its create,
 * status and submit views (views.ts), and the stocks list. The OpenAPI document and the
 * tests that check real answers read these.
 */
import * as v from "valibot";
import { Address, Atoms, Integer, IsoTime, Mint, Signature, Url } from "../openapi/primitives";
import type { builtView, statusView, submitView } from "./views";

const LaunchId = v.pipe(v.string(), v.uuid(), v.metadata({ description: "the launch id (UUID)" }));
export const LAUNCH_STATUSES = ["building", "awaiting_signature", "submitted", "confirmed", "expired", "failed"] as const;
const Status = v.picklist(LAUNCH_STATUSES);

export const LaunchQuote = v.variant("kind", [
  v.object({ kind: v.literal("sol") }),
  v.object({ kind: v.literal("stock"), ticker: v.string(), symbol: v.string(), mint: Address, decimals: Integer }),
]);

const identity = {
  id: LaunchId,
  status: Status,
  creator: Address,
  mint: v.pipe(v.nullable(Mint), v.metadata({ description: "the new coin, and the agent's id in the API" })),
  vault: v.pipe(v.nullable(Address), v.metadata({ description: "the agent's own wallet" })),
  pool: v.nullable(Address),
};

export const BuiltLaunch = v.object({
  ...identity,
  transaction: v.pipe(
    v.nullable(v.string()),
    v.metadata({ description: "base64 v0 transaction, already signed by the mint and the agent's wallet; the creator signs last, unchanged" }),
  ),
  lastValidBlockHeight: v.nullable(Integer),
  expiresAt: v.nullable(IsoTime),
  quote: LaunchQuote,
  firstBuy: v.nullable(v.object({ unit: v.literal("sol"), amount: Atoms })),
  agentUrl: v.nullable(Url),
});

export const LaunchStatusView = v.object({
  ...identity,
  signature: v.nullable(Signature),
  lastValidBlockHeight: v.nullable(Integer),
  agentUrl: v.nullable(Url),
  error: v.nullable(v.object({ code: v.string(), message: v.string() })),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});

export const SubmittedLaunch = v.object({ id: LaunchId, status: Status, signature: v.nullable(Signature), mint: v.nullable(Mint), agentUrl: v.nullable(Url) });

export const StockList = v.object({
  items: v.array(v.object({ ticker: v.string(), symbol: v.string(), mint: Address, decimals: Integer, config: Address })),
  nextCursor: v.null(),
});

({}) as ReturnType<typeof builtView> satisfies v.InferOutput<typeof BuiltLaunch>;
({}) as ReturnType<typeof statusView> satisfies v.InferOutput<typeof LaunchStatusView>;
({}) as ReturnType<typeof submitView> satisfies v.InferOutput<typeof SubmittedLaunch>;
