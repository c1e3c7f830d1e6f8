/**
 * The daemon surface under /v1: public reads (catalog, profile, stdout) with the Data API's
 * conventions (any origin, shared response cache, per-client budget, every problem in one
 * 400), the operator's routes on /daemons/:mint/... and the signed-in wallet's /me/console
 * and /me/approvals. Order of checks on signed-in routes: sign-in (401), the path (400),
 * the agent (404), its operator (403), then the body (400) and the action's own refusals.
 */
import { Elysia } from "elysia";
import { parseOrThrow, respond } from "../errors";
import { cachedAnswer, pageTtl, takeFromBudget, type ClientBudget } from "../public/http";
import type { ResponseCache } from "../public/cache";
import { readJson } from "../launches/body";
import { catalog } from "./catalog";
import { AutonomyBody, DecisionBody, DirectiveBody, MintIdParams, MintParam, PersonaBody, SpendQuery, StdoutQuery, parseBody } from "./model";
import { parseAll } from "../app-public";
import { signedIn } from "./operator";
import { SIGNED_IN_CORS } from "../auth";
import * as service from "./service";

export type DaemonRouteDeps = service.DaemonServiceDeps & ClientBudget & { cache: ResponseCache };

/** Seconds a shared cache may keep each public answer: the profile as a coin (5 s), the stdout's first page as trades (2 s). */
export const DAEMON_CACHE_SECONDS = { catalog: 60, profile: 5, stdoutFirstPage: 2, laterPages: 60 };

/**
 * Signed-in routes are called from the web app's origin with a bearer token (never a
 * cookie), so any origin may call them; the preflight names the methods and headers.
 */
const SIGNED_IN_PATHS = /^\/v1\/(daemons\/[^/]+\/(persona|autonomy|directives(\/[^/]+)?|spend|check|proposals\/[^/]+\/decision)|me\/(console|approvals))\/?$/;

/**
 * An Elysia instance under /v1 for routes some of which are signed in: the preflight of `signedInPaths` answered,
 * CORS for any origin on every answer, each request taken from the client's budget. Routes chain onto it.
 */
export const signedInSurface = (signedInPaths: RegExp, budget: ClientBudget) =>
  new Elysia({ prefix: "/v1" })
    .onRequest(({ request }) => {
      if (request.method === "OPTIONS" && signedInPaths.test(new URL(request.url).pathname)) return new Response(null, { status: 204, headers: SIGNED_IN_CORS });
    })
    .onBeforeHandle(({ request, set, server }) => {
      Object.assign(set.headers, SIGNED_IN_CORS);
      takeFromBudget(budget, request, server);
    });

export const daemonRoutes = (deps: DaemonRouteDeps) => {
  const cached = cachedAnswer(deps.cache);
  const catalogAnswer = catalog(deps.models);
  /** The agent, for its signed-in operator: 401, 400 (the path), 404, 403 in that order. */
  const operatorOf = async (request: Request, params: unknown, schema: typeof MintParam | typeof MintIdParams = MintParam) => {
    const address = await signedIn(deps.authenticate, request);
    const path = parseOrThrow(schema, params, "path") as { mint: string; id?: string };
    return { agent: await service.operatorAgent(deps, address, path.mint), id: path.id ?? "" };
  };
  const noStore = (set: { headers: Record<string, string | number> }) => {
    set.headers["cache-control"] = "no-store";
  };
  const body = { parse: "none" as const };

  return signedInSurface(SIGNED_IN_PATHS, deps)
    // public
    .get("/daemons/catalog", ({ set }) => cached(set, ["daemon-catalog"], DAEMON_CACHE_SECONDS.catalog, async () => catalogAnswer))
    .get("/daemons/:mint", ({ params, set }) => {
      const { mint } = parseOrThrow(MintParam, params);
      return cached(set, ["daemon", mint], DAEMON_CACHE_SECONDS.profile, () => service.profile(deps, mint));
    })
    .get("/daemons/:mint/stdout", ({ params, query, set }) => {
      const [{ mint }, q] = parseAll(() => parseOrThrow(MintParam, params), () => parseOrThrow(StdoutQuery, query));
      return cached(set, ["daemon-stdout", mint, q], pageTtl(q.cursor, DAEMON_CACHE_SECONDS.stdoutFirstPage, DAEMON_CACHE_SECONDS.laterPages), () => service.stdout(deps, mint, q));
    })
    // operator
    .put(
      "/daemons/:mint/persona",
      async ({ request, params, set }) => {
        const { agent } = await operatorOf(request, params);
        const change = parseBody(PersonaBody, await readJson(request));
        noStore(set);
        return service.putPersona(deps, agent, change);
      },
      body,
    )
    .put(
      "/daemons/:mint/autonomy",
      async ({ request, params, set }) => {
        const { agent } = await operatorOf(request, params);
        const { autonomy } = parseBody(AutonomyBody, await readJson(request));
        noStore(set);
        return service.putAutonomy(deps, agent, autonomy);
      },
      body,
    )
    .get("/daemons/:mint/directives", async ({ request, params, set }) => {
      const { agent } = await operatorOf(request, params);
      noStore(set);
      return service.listDirectives(deps, agent);
    })
    .post(
      "/daemons/:mint/directives",
      async ({ request, params }) => {
        const { agent } = await operatorOf(request, params);
        const d = parseBody(DirectiveBody, await readJson(request));
        return respond(201, await service.addDirective(deps, agent, d), SIGNED_IN_CORS);
      },
      body,
    )
    .delete("/daemons/:mint/directives/:id", async ({ request, params, set }) => {
      const { agent, id } = await operatorOf(request, params, MintIdParams);
      noStore(set);
      return service.archiveDirective(deps, agent, id);
    })
    .get("/daemons/:mint/spend", async ({ request, params, query, set }) => {
      const { agent } = await operatorOf(request, params);
      const q = parseOrThrow(SpendQuery, query);
      noStore(set);
      return service.spend(deps, agent, q);
    })
    .post(
      "/daemons/:mint/check",
      async ({ request, params }) => {
        const { agent } = await operatorOf(request, params);
        return respond(202, await service.check(deps, agent), SIGNED_IN_CORS);
      },
      body,
    )
    .post(
      "/daemons/:mint/proposals/:id/decision",
      async ({ request, params, set }) => {
        const { agent, id } = await operatorOf(request, params, MintIdParams);
        const { decision } = parseBody(DecisionBody, await readJson(request));
        noStore(set);
        return service.decide(deps, agent, id, decision);
      },
      body,
    )
    // signed-in
    .get("/me/console", async ({ request, set }) => {
      const address = await signedIn(deps.authenticate, request);
      noStore(set);
      return service.consoleOf(deps, address);
    })
    .get("/me/approvals", async ({ request, set }) => {
      const address = await signedIn(deps.authenticate, request);
      noStore(set);
      return service.approvalsOf(deps, address);
    });
};
