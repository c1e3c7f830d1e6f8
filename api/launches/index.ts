/**
 * The Launch API: /v1/launches and /v1/stocks, server to server with an API key.
 * Order of checks on every call: the key (401/403), the key's rate (429), then the
 * request itself. Bodies are read here (not by Elysia) so that order holds even
 * for a body that is not JSON.
 */
import { Elysia } from "elysia";
import { parseOrThrow, respond } from "../errors";
import { readJson } from "./body";
import { rateLimited } from "./rate-limit";
import { idempotencyKeyOrThrow, SubmitBody } from "./model";
import type { LaunchService, Answer } from "./service";
import type { ApiKeyRecord } from "./api-keys";
import type { ConfigRegistry } from "../../ingest/contract/configs";

export type LaunchRouteDeps = {
  service: LaunchService;
  auth: { authenticate(authorization: string | null | undefined, scope: "launch"): Promise<ApiKeyRecord> };
  limiter: { take(keyId: string): { ok: true } | { ok: false; retryAfterSeconds: number } };
  configs: ConfigRegistry;
};

const answer = (a: Answer) => respond(a.status, a.body, a.headers);

export const launchRoutes = (deps: LaunchRouteDeps) => {
  /** The key, with the launch permission and within its rate. */
  const caller = async (request: Request) => {
    const key = await deps.auth.authenticate(request.headers.get("authorization"), "launch");
    const rate = deps.limiter.take(key.id);
    if (!rate.ok) throw rateLimited(rate.retryAfterSeconds);
    return key;
  };

  return new Elysia({ prefix: "/v1" })
    .post(
      "/launches",
      async ({ request }) => {
        const key = await caller(request);
        const idempotencyKey = idempotencyKeyOrThrow(request.headers.get("idempotency-key"));
        return answer(await deps.service.create(key, idempotencyKey, await readJson(request)));
      },
      { parse: "none" },
    )
    .post(
      "/launches/:id/submit",
      async ({ request, params }) => {
        const key = await caller(request);
        const { signedTransaction } = parseOrThrow(SubmitBody, await readJson(request), "body");
        return answer(await deps.service.submit(key, params.id, signedTransaction));
      },
      { parse: "none" },
    )
    .post("/launches/:id/rebuild", async ({ request, params }) => answer(await deps.service.rebuild(await caller(request), params.id)), { parse: "none" })
    .get("/launches/:id", async ({ request, params }) => answer(await deps.service.status(await caller(request), params.id)))
    .get("/stocks", async ({ request }) => {
      await caller(request);
      const items = deps.configs.all
        .filter((c) => c.role === "stock" && c.quote.ticker)
        .map((c) => ({ ticker: c.quote.ticker, symbol: c.quote.symbol, mint: c.quote.mint, decimals: c.quote.decimals, config: c.address }));
      return answer({ status: 200, body: { items, nextCursor: null } });
    });
};
