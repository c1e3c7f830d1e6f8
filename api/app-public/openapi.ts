/**
 * The Application API's public reads in the OpenAPI document (api/openapi): what
 * index.ts parses each request with, and what it answers.
 */
import { READ_ERRORS, type RouteDoc } from "../openapi/route";
import { SolPrice } from "../openapi/primitives";
import { TradePage } from "../public/responses";
import { AnalyticsQuery, CandlesQuery, FeedQuery, MintParam, TokensQuery, TradesQuery } from "./model";
import * as r from "./responses";

const tag = "Application API: public reads";

export const appPublicSchemas = {
  Coin: r.Coin, Candle: r.Candle, Candles: r.Candles, FeedItem: r.FeedItem, PlatformStats: r.PlatformStats,
  AnalyticsOverview: r.AnalyticsOverview, Tokenomics: r.Tokenomics,
};

const FEED = "Without `kinds`: every kind but `thinking` (trades included).";

export const appPublicRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/tokens", operationId: "listTokens", tag, summary: "Platform coins, sorted",
    description: "`trending` sorts by 24 h volume; `q` as the agents list.",
    query: TokensQuery,
    responses: { 200: { description: "a page of coins", schema: r.CoinPage } },
    errors: READ_ERRORS.list,
  },
  {
    method: "get", path: "/v1/tokens/:mint", operationId: "getToken", tag, summary: "One coin",
    params: MintParam,
    responses: { 200: { description: "the coin; `market` equals the Data API agent's", schema: r.Coin } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/tokens/:mint/trades", operationId: "listTokenTrades", tag, summary: "A coin's trades, newest first",
    params: MintParam, query: TradesQuery,
    responses: { 200: { description: "a page of the Data API's trades", schema: TradePage } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/tokens/:mint/candles", operationId: "getTokenCandles", tag, summary: "A coin's candles across graduation",
    description:
      "At most 1,000 candles: both ends given and wider is 400; without `to`, up to now or 1,000 after `from` (page forward with `from`); without `from`, the 1,000 before `to`. `to` is not included.",
    params: MintParam, query: CandlesQuery,
    responses: { 200: { description: "OHLCV in SOL and USD, oldest first", schema: r.Candles } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/price/sol", operationId: "getSolPrice", tag, summary: "The SOL/USD price",
    responses: { 200: { description: "the first source that answers", schema: SolPrice } },
    errors: { 429: ["RATE_LIMITED"], 503: ["PRICE_UNAVAILABLE"] },
  },
  {
    method: "get", path: "/v1/platform/stats", operationId: "getPlatformStats", tag, summary: "Totals across public platform coins",
    responses: { 200: { description: "coins, graduated, live agents, trades, volumes, fees, holders, market cap", schema: r.PlatformStats } },
    errors: READ_ERRORS.fixed,
  },
  {
    method: "get", path: "/v1/analytics/overview", operationId: "getAnalyticsOverview", tag, summary: "Platform analytics over a range",
    query: AnalyticsQuery,
    responses: { 200: { description: "totals, revenue per day, fee split, creator rewards, top earners, recent payouts", schema: r.AnalyticsOverview } },
    errors: READ_ERRORS.list,
  },
  {
    method: "get", path: "/v1/tokenomics", operationId: "getTokenomics", tag, summary: "Fees, payouts, buybacks and the platform token's burns",
    responses: { 200: { description: "the split, totals, recent buybacks and creator payouts, the platform token's supply", schema: r.Tokenomics } },
    errors: READ_ERRORS.fixed,
  },
  {
    method: "get", path: "/v1/feed", operationId: "listFeed", tag, summary: "The platform's feed, newest first",
    description: FEED,
    query: FeedQuery,
    responses: { 200: { description: "a page of feed items", schema: r.FeedPage } },
    errors: READ_ERRORS.list,
  },
  {
    method: "get", path: "/v1/daemons/:mint/feed", operationId: "listDaemonFeed", tag, summary: "One agent's feed, newest first",
    description: FEED,
    params: MintParam, query: FeedQuery,
    responses: { 200: { description: "a page of feed items", schema: r.FeedPage } },
    errors: READ_ERRORS.byMint,
  },
];
