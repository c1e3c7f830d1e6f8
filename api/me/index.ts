/**
 * The signed-in account (Authorization: Bearer <access token> from /v1/auth/verify):
 * GET /v1/me, /v1/me/agents, /v1/me/wallet. Any origin (bearer tokens, no cookies); never
 * cached by shared caches (`no-store`): the answers belong to one wallet.
 * /v1/me/console and /v1/me/approvals belong to the agent runtime's routes.
 */
import { Elysia } from "elysia";
import { parseOrThrow } from "../errors";
import { MyAgentsQuery } from "./model";
import { takeFromBudget, type ClientBudget } from "../public/http";
import { signedInCors, type Auth } from "../auth";
import { account, myAgents, myWallet, type MeDeps } from "./service";

export type MeRouteDeps = MeDeps & {
  auth: Auth;
  /** the per-client request budget of the public reads (DATA_API_RATE_*) */
  budget?: ClientBudget;
};


export const meRoutes = (deps: MeRouteDeps) =>
  new Elysia({ prefix: "/v1/me" })
    .onRequest(signedInCors(/^\/v1\/me(\/|$)/))
    .onBeforeHandle(({ request, server }) => takeFromBudget(deps.budget ?? {}, request, server))
    .get("", async ({ request }) => account(deps, await deps.auth.requireSignedIn(request)))
    .get("/agents", async ({ request, query }) => {
      const { address } = await deps.auth.requireSignedIn(request);
      return myAgents(deps, address, parseOrThrow(MyAgentsQuery, query));
    })
    .get("/wallet", async ({ request }) => myWallet(deps, (await deps.auth.requireSignedIn(request)).address));
