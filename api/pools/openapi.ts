/**
 * Live pool state and quotes in the OpenAPI document (api/openapi).
 */
import type { RouteDoc } from "../openapi/route";
import { MintParam, QuoteQuery } from "./model";
import { PoolState, SwapQuote } from "./responses";

const tag = "Application API: public reads";
const AGE = [{ name: "Age", description: "seconds since the chain read this answer comes from (kept 2 s)", schema: { type: "integer" } }];

export const poolSchemas = { PoolState, SwapQuote };

export const poolRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/tokens/:mint/pool", operationId: "getTokenPool", tag, summary: "A coin's live pool state (over RPC)",
    description: "Read over `SOLANA_RPC_URL` at one context slot, kept 2 s per pool.",
    params: MintParam,
    responses: { 200: { description: "the pool where the coin trades now", schema: PoolState, headers: AGE } },
    errors: { 400: ["VALIDATION_ERROR"], 404: ["NOT_FOUND"], 429: ["RATE_LIMITED"], 502: ["UPSTREAM_ERROR"], 503: ["UPSTREAM_ERROR"] },
  },
  {
    method: "get", path: "/v1/tokens/:mint/quote", operationId: "getTokenQuote", tag, summary: "An exact-in quote at the coin's venue",
    description: "The SDKs' own quote functions on the live pool state (DBC `swapQuoteExactIn`, DAMM v2 `swapQuoteExactInput`).",
    params: MintParam, query: QuoteQuery,
    responses: { 200: { description: "amount out, minimum after slippage, fee, price impact", schema: SwapQuote, headers: AGE } },
    errors: { 400: ["VALIDATION_ERROR"], 404: ["NOT_FOUND"], 409: ["CURVE_COMPLETE", "SWAP_DISABLED"], 429: ["RATE_LIMITED"], 502: ["UPSTREAM_ERROR"], 503: ["UPSTREAM_ERROR"] },
  },
];
