/**
 * The Launch API in the OpenAPI document (api/openapi). Order of checks on every call:
 * the key (401/403), the key's rate (429), then the request itself.
 */
import * as v from "valibot";
import type { RouteDoc } from "../openapi/route";
import type { ErrorCode } from "../openapi/error-codes";
import { CreateBody, IDEMPOTENCY_KEY, SubmitBody } from "./model";
import { BuiltLaunch, LaunchQuote, LaunchStatusView, StockList, SubmittedLaunch } from "./responses";

const tag = "Launch API";

/** Launch ids are not parsed by the routes: an id that is not one of this key's launches is 404 LAUNCH_NOT_FOUND. */
export const LaunchPath = v.object({ id: v.pipe(v.string(), v.metadata({ description: "the launch id (UUID) the create answered with", format: "uuid" })) });

/** 401, 403 and 429 of every call, plus the route's own. */
const keyErrors = (more: Partial<Record<number, readonly ErrorCode[]>> = {}): RouteDoc["errors"] => ({
  401: ["API_KEY_REQUIRED", "API_KEY_INVALID", "API_KEY_REVOKED"], 403: ["API_KEY_SCOPE"], 429: ["RATE_LIMITED"], ...more,
});

const CREATOR = "7YttLkHDoNj9wyDur5pM1ejNaAvT9X4eqaYcHQqtj2G5";

export const launchSchemas = { BuiltLaunch, LaunchStatusView, SubmittedLaunch, LaunchQuote };

export const launchRoutes: RouteDoc[] = [
  {
    method: "post", path: "/v1/launches", operationId: "createLaunch", tag, security: "apiKey", summary: "Build a coin's launch transaction",
    description:
      "Validates the body (every problem at once), downloads and stores the image, passes every text through the safety filter, then builds the launch transaction for the creator to sign last. The same Idempotency-Key and body replay the first answer (`Idempotent-Replayed: true`).",
    headers: [{ name: "Idempotency-Key", required: true, description: "8-128 letters, digits, - _ . : (a retried create makes one launch)", schema: { type: "string", pattern: IDEMPOTENCY_KEY.source } }],
    body: {
      schema: CreateBody,
      example: {
        creator: CREATOR, name: "Moon Dog", symbol: "MDOG", description: "A community coin for dog lovers",
        image: { url: "https://images.example/moon-dog.png" }, goal: "community",
        agent: { name: "Rex", presence: "influencer", traits: ["loyal", "playful"], drive: "keep the pack together", motto: "hold on" },
        firstBuy: { unit: "sol", amount: "500000000" },
      },
    },
    responses: {
      201: {
        description: "the launch, with the transaction to sign",
        schema: BuiltLaunch,
        headers: [{ name: "Idempotent-Replayed", description: "`true` when this answer replays an earlier create with the same key" }],
      },
    },
    errors: keyErrors({
      400: ["IDEMPOTENCY_KEY_REQUIRED", "VALIDATION_ERROR", "IMAGE_URL_REFUSED", "IMAGE_TOO_LARGE", "IMAGE_NOT_AN_IMAGE", "IMAGE_UNREACHABLE", "FIRST_BUY_OVER_CAP", "FIRST_BUY_NOT_SUPPORTED"],
      409: ["IDEMPOTENCY_KEY_REUSED", "LAUNCH_IN_PROGRESS"],
      422: ["FIREWALL_BLOCKED"],
      429: ["RATE_LIMITED", "LAUNCH_QUOTA"],
      502: ["UPSTREAM_ERROR"],
      503: ["SIGNER_UNAVAILABLE"],
    }),
  },
  {
    method: "post", path: "/v1/launches/:id/submit", operationId: "submitLaunch", tag, security: "apiKey", summary: "Send the creator-signed transaction",
    description: "Checks every signature and that the transaction is exactly the one built, sends it and waits up to 20 s for confirmation. Submitting the same bytes twice is safe.",
    params: LaunchPath,
    body: { schema: SubmitBody, example: { signedTransaction: "AQAB…(base64)" } },
    responses: {
      200: { description: "confirmed: the coin trades, the agent exists", schema: SubmittedLaunch },
      202: { description: "sent, not confirmed yet: poll GET /v1/launches/{id}", schema: SubmittedLaunch },
    },
    errors: keyErrors({
      400: ["VALIDATION_ERROR", "TX_MISMATCH", "BAD_SIGNATURE", "MISSING_SIGNATURE", "INVALID_TRANSACTION"],
      404: ["LAUNCH_NOT_FOUND"],
      409: ["NOT_BUILT", "EXPIRED"],
      422: ["SEND_FAILED", "LAUNCH_FAILED"],
      502: ["UPSTREAM_ERROR"],
      503: ["SIGNER_UNAVAILABLE"],
    }),
  },
  {
    method: "post", path: "/v1/launches/:id/rebuild", operationId: "rebuildLaunch", tag, security: "apiKey", summary: "A fresh transaction for an expired launch",
    description: "New blockhash and mint, same id and agent wallet; only once the old transaction can never land.",
    params: LaunchPath,
    responses: { 200: { description: "the launch, with a fresh transaction to sign", schema: BuiltLaunch } },
    errors: keyErrors({
      404: ["LAUNCH_NOT_FOUND"],
      409: ["NOT_BUILT", "STILL_VALID", "ALREADY_SUBMITTED", "ALREADY_LAUNCHED", "LAUNCH_IN_PROGRESS"],
      422: ["LAUNCH_FAILED"],
      502: ["UPSTREAM_ERROR"],
      503: ["SIGNER_UNAVAILABLE"],
    }),
  },
  {
    method: "get", path: "/v1/launches/:id", operationId: "getLaunch", tag, security: "apiKey", summary: "A launch's status",
    params: LaunchPath,
    responses: { 200: { description: "the status view", schema: LaunchStatusView } },
    errors: keyErrors({ 404: ["LAUNCH_NOT_FOUND"] }),
  },
  {
    method: "get", path: "/v1/stocks", operationId: "listStocks", tag, security: "apiKey", summary: "Tickers usable with goal stock",
    responses: { 200: { description: "the platform's stock configs", schema: StockList } },
    errors: keyErrors(),
  },
];
