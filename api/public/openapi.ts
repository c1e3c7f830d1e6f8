/**
 * The Data API's routes in the OpenAPI document (api/openapi): what index.ts parses
 * each request with, and what it answers.
 */
import { READ_ERRORS, type RouteDoc } from "../openapi/route";
import { SolPrice } from "../openapi/primitives";
import { ActivityQuery, AgentsQuery, MintParam, TradesQuery } from "./model";
import * as r from "./responses";

const tag = "Data API";
const CACHED = "Cached by shared caches (Cache-Control) for the spec's lifetimes; any origin may call.";

export const dataApiSchemas = {
  Agent: r.Agent, Market: r.Market, Quote: r.Quote, Trade: r.Trade, ActivityItem: r.ActivityItem, ItemLinks: r.ItemLinks,
  DataStats: r.DataStats, PlatformConfig: r.PlatformConfig, ConfigsList: r.ConfigsList, SolPrice,
};

export const dataApiRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/public/agents", operationId: "listAgents", tag, summary: "Public agents, filtered and sorted",
    description: `\`trending\` sorts by 24 h volume, \`volume\` by all-time volume; \`q\` matches the coin name, ticker, agent name or an exact mint. ${CACHED}`,
    query: AgentsQuery,
    responses: { 200: { description: "a page of agents (`links` null in lists)", schema: r.AgentPage } },
    errors: READ_ERRORS.list,
  },
  {
    method: "get", path: "/v1/public/agents/:mint", operationId: "getAgent", tag, summary: "One public agent, with its links",
    params: MintParam,
    responses: { 200: { description: "the agent", schema: r.Agent } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/public/agents/:mint/trades", operationId: "listAgentTrades", tag, summary: "An agent's trades, newest first",
    params: MintParam, query: TradesQuery,
    responses: { 200: { description: "a page of trades", schema: r.TradePage } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/public/agents/:mint/activity", operationId: "listAgentActivity", tag, summary: "An agent's activity, newest first",
    description: "Without `kinds`: every kind but `trade` and `thinking`.",
    params: MintParam, query: ActivityQuery,
    responses: { 200: { description: "a page of activity items", schema: r.ActivityPage } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/public/activity", operationId: "listActivity", tag, summary: "Every public agent's activity, newest first",
    description: "Without `kinds`: every kind but `trade` and `thinking`.",
    query: ActivityQuery,
    responses: { 200: { description: "a page of activity items", schema: r.ActivityPage } },
    errors: READ_ERRORS.list,
  },
  {
    method: "get", path: "/v1/public/stats", operationId: "getDataStats", tag, summary: "Platform stats",
    responses: { 200: { description: "agent counts, 24 h trades and volume, market cap", schema: r.DataStats } },
    errors: READ_ERRORS.fixed,
  },
  {
    method: "get", path: "/v1/public/price/sol", operationId: "getDataSolPrice", tag, summary: "The SOL/USD price",
    responses: { 200: { description: "the first source that answers", schema: SolPrice } },
    errors: { 429: ["RATE_LIMITED"], 503: ["PRICE_UNAVAILABLE"] },
  },
  {
    method: "get", path: "/v1/public/configs", operationId: "listConfigs", tag, summary: "The platform's pool configs",
    description: "A pool belongs to the platform when its config account is in this list.",
    responses: { 200: { description: "the configs list", schema: r.ConfigsList } },
    errors: READ_ERRORS.fixed,
  },
];
