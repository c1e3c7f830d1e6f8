/**
 * Helius's webhook API, the two calls the address sync needs: `GET` and `PUT
 * /v0/webhooks/{id}?api-key=…`, at a configurable base URL (HELIUS_API_URL).
 *
 * Why not helius-sdk: its webhook methods (helius-sdk 3.2.0, `dist/esm/webhooks/*.js`)
 * build `https://api-mainnet.helius-rpc.com/v0/webhooks/…` as a fixed string, with no
 * option for another host, so they could not be pointed at a test double, a proxy or a
 * future host. This client speaks the same documented REST API, with the SDK's `Webhook`
 * type as the wire shape.
 *
 * The API key travels in the query string, as Helius requires; it never appears in an
 * error message or a log (every text that leaves here is passed through `redact`).
 */
import * as v from "valibot";
import type { Webhook } from "helius-sdk/types/webhooks";
import { retry, type RetryPolicy } from "../../infra/retry";

export type HeliusWebhook = Webhook & Record<string, unknown>;

/** What GET answers, checked: the fields the sync reads; the others are kept as they came. */
const WebhookSchema = v.looseObject({
  webhookID: v.string(),
  webhookURL: v.string(),
  webhookType: v.string(),
  transactionTypes: v.array(v.string()),
  accountAddresses: v.array(v.string()),
});

export class HeliusApiError extends Error {
  constructor(
    message: string,
    /** HTTP status, or null when Helius was not reached */
    readonly status: number | null,
  ) {
    super(message);
  }
  /** a 4xx other than 429, or a 2xx of the wrong shape, will not change by asking again */
  get retryable(): boolean {
    return this.status === null || this.status === 429 || this.status >= 500;
  }
}

export type WebhookApi = {
  get(webhookId: string): Promise<HeliusWebhook>;
  /** replaces the webhook's configuration with `body` (Helius's PUT is a full replace) */
  put(webhookId: string, body: Record<string, unknown>): Promise<HeliusWebhook>;
};

/** A few quick retries: Helius answers within a second when it is up; the periodic sync covers longer outages. */
export const HELIUS_RETRY: RetryPolicy = { retries: 4, minDelayMs: 500, maxDelayMs: 5_000 };

export function createWebhookApi(o: {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** told of each failed attempt that will be retried (the message is already redacted) */
  onRetry?: (message: string, attempt: number, retriesLeft: number) => void;
}): WebhookApi {
  const redact = (text: string) => text.split(o.apiKey).join("<api-key>").split(encodeURIComponent(o.apiKey)).join("<api-key>");
  const call = async (method: "GET" | "PUT", webhookId: string, body?: unknown): Promise<HeliusWebhook> => {
    const url = `${o.baseUrl.replace(/\/+$/, "")}/v0/webhooks/${encodeURIComponent(webhookId)}?api-key=${encodeURIComponent(o.apiKey)}`;
    const what = `${method} /v0/webhooks/${webhookId}`;
    return retry(
      async () => {
        let res: Response;
        try {
          res = await fetch(url, {
            method,
            headers: { "content-type": "application/json", accept: "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
          });
        } catch (err) {
          throw new HeliusApiError(`Helius webhook API unreachable (${what}): ${redact((err as Error).message)}`, null);
        }
        const text = await res.text();
        if (!res.ok) {
          const hint = res.status === 401 || res.status === 403 ? " (check HELIUS_API_KEY)" : res.status === 404 ? " (check HELIUS_WEBHOOK_ID)" : "";
          throw new HeliusApiError(`Helius answered ${res.status} to ${what}${hint}: ${redact(text).slice(0, 300)}`, res.status);
        }
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          throw new HeliusApiError(`Helius answered ${what} with something that is not JSON: ${redact(text).slice(0, 200)}`, res.status);
        }
        const parsed = v.safeParse(WebhookSchema, json);
        if (!parsed.success)
          throw new HeliusApiError(`Helius answered ${what} with an unexpected shape (${v.getDotPath(parsed.issues[0]) ?? "body"}: ${parsed.issues[0].message})`, res.status);
        return parsed.output as HeliusWebhook;
      },
      {
        ...(o.retry ?? HELIUS_RETRY),
        shouldRetry: (err) => !(err instanceof HeliusApiError) || err.retryable,
        onRetry: (err, attempt, left) => o.onRetry?.((err as Error).message, attempt, left),
      },
    );
  };
  return { get: (id) => call("GET", id), put: (id, body) => call("PUT", id, body) };
}
