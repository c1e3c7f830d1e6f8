/**
 * Wallet sign-in (Sign-In With Solana): POST /v1/auth/nonce, /verify, /refresh, /logout.
 * Any browser origin may call them (bearer tokens, no cookies, so no origin can ride on a
 * user's session); answers are never cached. Every request counts against the per-client
 * budget of the public reads; nonces have a stricter limit of their own.
 * `createAuth` / `requireOperator` (session.ts) are what other routes use.
 */
import { Elysia } from "elysia";
import { parseOrThrow, validationError } from "../errors";
import { readLimited } from "../launches/body";
import { takeFromBudget, type ClientBudget } from "../public/http";
import type { ClientLimiter } from "../public/rate-limit";
import type { ClientAddressOf } from "../public/client-address";
import { LogoutBody, NonceBody, RefreshBody, VerifyBody } from "./model";
import { unauthorized, type AuthService } from "./service";
import { bearerToken } from "./session";

export { createAuthService, NONCE_TTL_MS, type AuthService, type SignInSettings, type TokenPair } from "./service";
export { createAuth, requireOperator, type Auth, type OperatorDeps } from "./session";

/**
 * CORS of the signed-in Application API: any origin, with Authorization listed by name
 * (a `*` in Access-Control-Allow-Headers does not cover Authorization).
 */
export const SIGNED_IN_CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, DELETE, OPTIONS",
  "access-control-allow-headers": "authorization, content-type",
  "access-control-max-age": "86400",
};

/** Answers a preflight and sets CORS on the paths `routes` matches; nothing on other paths (onRequest runs for every path of the app). */
export const signedInCors = (routes: RegExp) => ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) => {
  if (!routes.test(new URL(request.url).pathname)) return;
  Object.assign(set.headers, SIGNED_IN_CORS, { "cache-control": "no-store" });
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: SIGNED_IN_CORS });
};

export type AuthRouteDeps = {
  service: AuthService;
  /** nonces per client address (AUTH_NONCE_RATE_PER_MINUTE); null = no limit */
  nonceLimiter: ClientLimiter | null;
  clientOf?: ClientAddressOf;
  /** the per-client request budget every route counts against (the Data API's, DATA_API_RATE_*) */
  budget?: ClientBudget;
};

/** A JSON body (within 64 kB); an empty one reads as {} when `emptyIsObject`. */
async function body(request: Request, emptyIsObject = false): Promise<unknown> {
  const text = new TextDecoder().decode(await readLimited(request)).trim();
  if (!text && emptyIsObject) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw validationError([{ field: "body", message: "is not valid JSON" }]);
  }
}

export const authRoutes = (deps: AuthRouteDeps) =>
  new Elysia({ prefix: "/v1/auth" })
    .onRequest(signedInCors(/^\/v1\/auth\//))
    .onBeforeHandle(({ request, server }) => takeFromBudget(deps.budget ?? {}, request, server))
    .post(
      "/nonce",
      async ({ request, server }) => {
        takeFromBudget({ limiter: deps.nonceLimiter, clientOf: deps.clientOf }, request, server);
        const { address } = parseOrThrow(NonceBody, await body(request), "body");
        return deps.service.issueNonce(address);
      },
      { parse: "none" },
    )
    .post("/verify", async ({ request }) => deps.service.verify(parseOrThrow(VerifyBody, await body(request), "body")), { parse: "none" })
    .post("/refresh", async ({ request }) => deps.service.refresh(parseOrThrow(RefreshBody, await body(request), "body").refreshToken), { parse: "none" })
    .post(
      "/logout",
      async ({ request }) => {
        const { refreshToken } = parseOrThrow(LogoutBody, await body(request, true), "body");
        const token = refreshToken !== undefined ? { refreshToken } : { accessToken: bearerToken(request) };
        if (!(await deps.service.logout(token))) throw unauthorized("TOKEN_INVALID", "the token is not one this platform issued");
        return { signedOut: true };
      },
      { parse: "none" },
    );
