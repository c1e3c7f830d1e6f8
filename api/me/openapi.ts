/**
 * The signed-in account in the OpenAPI document (api/openapi): /v1/me, its agents, its wallet.
 */
import * as v from "valibot";
import { SIGNED_IN_ERRORS, type RouteDoc } from "../openapi/route";
import { Address, Atoms, Integer, IsoTime } from "../openapi/primitives";
import { AgentPage } from "../public/responses";
import { MyAgentsQuery } from "./model";

const tag = "Signed-in account";

export const Account = v.object({
  address: Address,
  agents: v.pipe(Integer, v.metadata({ description: "agents the wallet launched (hidden ones not counted)" })),
  expiresAt: v.pipe(IsoTime, v.metadata({ description: "when the access token ends" })),
});

export const WalletBalance = v.object({ address: Address, lamports: Atoms });

export const meSchemas = { Account, WalletBalance };

export const meRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/me", operationId: "getMe", tag, security: "bearer", summary: "The signed-in wallet",
    responses: { 200: { description: "the account", schema: Account } },
    errors: { 401: SIGNED_IN_ERRORS, 429: ["RATE_LIMITED"] },
  },
  {
    method: "get", path: "/v1/me/agents", operationId: "listMyAgents", tag, security: "bearer", summary: "Agents the wallet launched, newest first",
    description: "Each exactly the Data API's agent (`links` null as in lists); hidden agents are left out.",
    query: MyAgentsQuery,
    responses: { 200: { description: "a page of agents", schema: AgentPage } },
    errors: { 400: ["VALIDATION_ERROR"], 401: SIGNED_IN_ERRORS, 429: ["RATE_LIMITED"] },
  },
  {
    method: "get", path: "/v1/me/wallet", operationId: "getMyWallet", tag, security: "bearer", summary: "The wallet's SOL balance (over RPC)",
    responses: { 200: { description: "the balance, kept 5 s per address", schema: WalletBalance } },
    errors: { 401: SIGNED_IN_ERRORS, 429: ["RATE_LIMITED"], 502: ["UPSTREAM_ERROR"], 503: ["UPSTREAM_ERROR"] },
  },
];
