/**
 * Test double of Helius's webhook API on loopback: `GET` and `PUT /v0/webhooks/{id}`
 * with `?api-key=`, answering the shape of helius-sdk's `Webhook` type. It enforces the
 * api key (401 otherwise), answers 404 for an unknown webhook, treats PUT as Helius
 * does (a full replace of the editable fields: one left out is gone), refuses more
 * than 100,000 addresses, records every request, and can be told to fail the next
 * calls. For tests only; nothing here talks to Helius.
 */
export type RecordedHeliusRequest = { method: string; path: string; apiKey: string | null; body: any };

export type HeliusDoubleWebhook = {
  webhookID: string;
  wallet: string;
  webhookURL: string;
  transactionTypes: string[];
  accountAddresses: string[];
  webhookType: string;
  authHeader?: string;
  encoding?: string;
  txnStatus?: string;
  active?: boolean;
};

const EDITABLE = ["webhookURL", "transactionTypes", "accountAddresses", "webhookType", "authHeader", "encoding", "txnStatus"] as const;
export const HELIUS_MAX_ADDRESSES_DOUBLE = 100_000;

export function startHeliusApiTestDouble(o: { apiKey: string; webhooks: HeliusDoubleWebhook[] }) {
  const webhooks = new Map(o.webhooks.map((w) => [w.webhookID, structuredClone(w)]));
  const requests: RecordedHeliusRequest[] = [];
  let failures: number[] = [];
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const text = req.method === "GET" ? "" : await req.text();
      let body: any = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      const apiKey = url.searchParams.get("api-key");
      requests.push({ method: req.method, path: url.pathname, apiKey, body });
      const failure = failures.shift();
      if (failure !== undefined) return json(failure, { error: "test double: failing as told" });
      // echoes the key it was given, as some APIs do, so a client that passes error text on must redact it
      if (apiKey !== o.apiKey) return json(401, { error: `invalid api key: ${apiKey}` });
      const m = /^\/v0\/webhooks\/([^/]+)$/.exec(url.pathname);
      if (!m) return json(404, { error: "not found" });
      const current = webhooks.get(decodeURIComponent(m[1]!));
      if (!current) return json(404, { error: "webhook not found" });
      if (req.method === "GET") return json(200, current);
      if (req.method !== "PUT") return json(405, { error: "method not allowed" });
      if (typeof body !== "object" || body === null || !Array.isArray(body.accountAddresses) || typeof body.webhookURL !== "string")
        return json(400, { error: "webhookURL and accountAddresses are required" });
      if (body.accountAddresses.length > HELIUS_MAX_ADDRESSES_DOUBLE) return json(400, { error: "too many addresses" });
      const next: HeliusDoubleWebhook = { webhookID: current.webhookID, wallet: current.wallet, active: current.active } as HeliusDoubleWebhook;
      for (const k of EDITABLE) if (body[k] !== undefined) (next as any)[k] = body[k];
      webhooks.set(current.webhookID, next);
      return json(200, next);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    webhook: (id: string) => structuredClone(webhooks.get(id)),
    puts: () => requests.filter((r) => r.method === "PUT"),
    /** the next calls answer these statuses, in order, before anything else is checked */
    failNext: (...statuses: number[]) => void (failures = [...failures, ...statuses]),
    stop: () => server.stop(true),
  };
}
export type HeliusApiTestDouble = ReturnType<typeof startHeliusApiTestDouble>;
