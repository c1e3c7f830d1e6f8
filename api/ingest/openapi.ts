/**
 * The Helius webhook in the OpenAPI document (api/openapi). The body is checked by the
 * decoder (ingest/helius/handle.ts `checkWebhookBody`): a JSON array of at most
 * MAX_TRANSACTIONS_PER_WEBHOOK transaction objects, raw or enhanced.
 */
import * as v from "valibot";
import type { RouteDoc } from "../openapi/route";
import { Integer } from "../openapi/primitives";
import { MAX_TRANSACTIONS_PER_WEBHOOK } from "../../ingest/helius/handle";

export const WebhookBody = v.pipe(
  v.array(v.record(v.string(), v.unknown())),
  v.maxLength(MAX_TRANSACTIONS_PER_WEBHOOK),
  v.metadata({ description: "transactions as Helius posts them (raw `getTransaction` JSON or enhanced transactions)" }),
);

export const WebhookReceipt = v.object({
  received: v.pipe(Integer, v.metadata({ description: "transactions in the body, all stored" })),
  undecodable: v.pipe(Integer, v.metadata({ description: "of them, stored aside as undecodable" })),
});

export const ingestRoutes: RouteDoc[] = [
  {
    method: "post", path: "/v1/ingest/helius", operationId: "postHeliusWebhook", tag: "Webhook", security: "webhook",
    summary: "Helius webhook receiver",
    description: "Answered 200 only once every transaction of the body is stored; otherwise 503 and nothing is stored (Helius retries).",
    body: { schema: WebhookBody },
    responses: { 200: { description: "stored", schema: WebhookReceipt } },
    errors: { 400: ["VALIDATION_ERROR"], 401: ["UNAUTHORIZED"], 503: ["UNAVAILABLE", "OVERLOADED"] },
  },
];
