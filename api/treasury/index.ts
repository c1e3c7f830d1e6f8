/**
 * Treasury actions' routes under /v1/daemons/:mint: airdrops (the operator's POST; the public
 * list and the snapshot each airdrop used). Checks on the operator's route in the daemon
 * surface's order: sign-in (401), the path (400), the agent (404), its operator (403), the
 * body (400), then the action's own refusals (409 CAPABILITY_MISSING, NOT_COVERED,
 * REF_REUSED, VAULT_KEY_MISSING, NO_ELIGIBLE_HOLDERS; 502/503 UPSTREAM_ERROR). Public reads
 * follow the Data API's conventions (any origin, shared cache, per-client budget).
 */
import { Elysia } from "elysia";
import { notFound, parseOrThrow, respond } from "../errors";
import { cachedAnswer, pageTtl, takeFromBudget, type ClientBudget } from "../public/http";
import type { ResponseCache } from "../public/cache";
import { readJson } from "../launches/body";
import { parseAll } from "../app-public";
import { parseBody } from "../daemons/model";
import { signedIn, type Authenticate } from "../daemons/operator";
import { operatorAgent } from "../daemons/service";
import { SIGNED_IN_CORS } from "../auth";
import type { Sql } from "../../infra/postgres";
import { AirdropBody, AirdropsQuery, MintAirdropParams, MintParam } from "./model";
import type { AirdropActions } from "./actions";

export type TreasuryRouteDeps = ClientBudget & { sql: Sql; authenticate: Authenticate; cache: ResponseCache; airdrops: AirdropActions };

/** Seconds a shared cache keeps the public lists: a first page as the stdout's (2 s), a snapshot for good (it never changes). */
export const TREASURY_CACHE_SECONDS = { firstPage: 2, laterPages: 60, snapshot: 3600 };

const OPERATOR_PATHS = /^\/v1\/daemons\/[^/]+\/airdrops\/?$/;

export const treasuryRoutes = (deps: TreasuryRouteDeps) => {
  const cached = cachedAnswer(deps.cache);
  const publicAgent = async (mint: string) => {
    const [a] = await deps.sql<{ hidden: boolean }[]>`SELECT hidden FROM agents WHERE mint = ${mint}`;
    if (!a || a.hidden) throw notFound(`no agent with mint ${mint}`);
  };
  return new Elysia({ prefix: "/v1" })
    .onRequest(({ request }) => {
      if (request.method === "OPTIONS" && OPERATOR_PATHS.test(new URL(request.url).pathname)) return new Response(null, { status: 204, headers: SIGNED_IN_CORS });
    })
    .onBeforeHandle(({ request, set, server }) => {
      Object.assign(set.headers, SIGNED_IN_CORS);
      takeFromBudget(deps, request, server);
    })
    .post(
      "/daemons/:mint/airdrops",
      async ({ request, params }) => {
        const address = await signedIn(deps.authenticate, request);
        const { mint } = parseOrThrow(MintParam, params, "path");
        await operatorAgent(deps, address, mint);
        const body = parseBody(AirdropBody, await readJson(request));
        if (body.mode === "preview") return respond(200, await deps.airdrops.preview(mint, { lamports: body.lamports }), SIGNED_IN_CORS);
        const r = await deps.airdrops.execute(mint, { lamports: body.lamports, ref: body.ref }, { requestedBy: address });
        return respond(202, { ref: r.ref, queued: r.queued }, SIGNED_IN_CORS);
      },
      { parse: "none" },
    )
    .get("/daemons/:mint/airdrops", ({ params, query, set }) => {
      const [{ mint }, q] = parseAll(() => parseOrThrow(MintParam, params), () => parseOrThrow(AirdropsQuery, query));
      return cached(set, ["airdrops", mint, q], pageTtl(q.cursor, TREASURY_CACHE_SECONDS.firstPage, TREASURY_CACHE_SECONDS.laterPages), async () => {
        await publicAgent(mint);
        return deps.airdrops.list(mint, q);
      });
    })
    .get("/daemons/:mint/airdrops/:id/snapshot", ({ params, set }) => {
      const { mint, id } = parseOrThrow(MintAirdropParams, params);
      return cached(set, ["airdrop-snapshot", mint, id], TREASURY_CACHE_SECONDS.snapshot, async () => {
        await publicAgent(mint);
        const s = await deps.airdrops.snapshot(mint, id);
        if (!s) throw notFound(`${mint} has no airdrop ${id}`);
        return s;
      });
    });
};
