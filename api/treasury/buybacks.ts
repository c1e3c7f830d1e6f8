/**
 * Buybacks of an agent's coin (issue 14), beside the other treasury actions' routes (index.ts):
 * `POST /v1/daemons/:mint/buybacks` for its operator
 * (`{ lamports, slippageBps?, burn?, ref? }` → 202 `{ ref, queued }`) and the public
 * `GET /v1/daemons/:mint/buybacks` (records, newest first). The work itself (limits against
 * the vault's claimed fees, the swap and burn) is the agents' treasury core's
 * (agents/treasury/buybacks/), handed in by the composition root as `BuybackActions`: the
 * API does not import the agents.
 *
 * Checks in order: sign-in (401), the path (400), the agent (404), its operator (403), the
 * body (400, every problem at once), then the action's refusals (409 CURVE_COMPLETE,
 * NOT_COVERED, REF_REUSED, VAULT_KEY_MISSING, NOT_SOL_QUOTED; 503/502 without the chain).
 */
import { Elysia } from "elysia";
import * as v from "valibot";
import { parseOrThrow, respond } from "../errors";
import { cachedAnswer, pageTtl, takeFromBudget, type ClientBudget } from "../public/http";
import type { ResponseCache } from "../public/cache";
import { readJson } from "../launches/body";
import { SIGNED_IN_CORS } from "../auth";
import { parseAll } from "../app-public";
import { MintParam, parseBody } from "../daemons/model";
import { lamportsIn, Ref } from "./model";
import { signedIn, type Authenticate } from "../daemons/operator";
import { intInRange } from "../public/model";
import { operatorAgent } from "../daemons/service";
import type { AgentRecord } from "../daemons/store";
import { BUYBACK_MAX_LAMPORTS } from "./limits";
import type { Sql } from "../../infra/postgres";

export { BUYBACK_MAX_LAMPORTS };
export const DEFAULT_SLIPPAGE_BPS = 100;

export const BuybackBody = v.strictObject({
  lamports: lamportsIn(1n, BUYBACK_MAX_LAMPORTS, { max: "0.5 SOL per buyback", min: "1 lamport" }),
  slippageBps: v.optional(v.pipe(v.number("must be an integer from 0 to 10000"), v.integer("must be an integer from 0 to 10000"), v.minValue(0, "must be an integer from 0 to 10000"), v.maxValue(10_000, "must be an integer from 0 to 10000")), DEFAULT_SLIPPAGE_BPS),
  burn: v.optional(v.boolean("must be true or false"), false),
  ref: v.optional(Ref),
});
export type BuybackRequest = v.InferOutput<typeof BuybackBody>;

const rowId = v.pipe(v.string(), v.regex(/^[1-9]\d{0,18}$/, "must be nextCursor of the page before"));
export const BuybacksQuery = v.object({ limit: intInRange(1, 50, 20), cursor: v.optional(rowId) });
export type BuybacksPage = v.InferOutput<typeof BuybacksQuery>;

/** What the agents' treasury core does for these routes (agents/treasury/buybacks/service.ts). */
export type BuybackActions = {
  request(agent: AgentRecord, body: BuybackRequest, requestedBy: string): Promise<{ ref: string; queued: boolean }>;
  list(mint: string, page: BuybacksPage): Promise<{ items: unknown[]; nextCursor: string | null }>;
};

export type BuybackRouteDeps = ClientBudget & {
  sql: Sql;
  cache: ResponseCache;
  authenticate: Authenticate;
  buybacks: BuybackActions;
};

/** Seconds a shared cache keeps the list: the first page as an activity page (3 s), later pages a minute. */
export const BUYBACKS_CACHE_SECONDS = { firstPage: 3, laterPages: 60 };
const PATH = /^\/v1\/daemons\/[^/]+\/buybacks\/?$/;

export const buybackRoutes = (deps: BuybackRouteDeps) => {
  const cached = cachedAnswer(deps.cache);
  return new Elysia({ prefix: "/v1" })
    .onRequest(({ request }) => {
      if (request.method === "OPTIONS" && PATH.test(new URL(request.url).pathname)) return new Response(null, { status: 204, headers: SIGNED_IN_CORS });
    })
    .onBeforeHandle(({ request, set, server }) => {
      Object.assign(set.headers, SIGNED_IN_CORS);
      takeFromBudget(deps, request, server);
    })
    .get("/daemons/:mint/buybacks", async ({ params, query, set }) => {
      const [{ mint }, q] = parseAll(() => parseOrThrow(MintParam, params), () => parseOrThrow(BuybacksQuery, query));
      return cached(set, ["daemon-buybacks", mint, q], pageTtl(q.cursor, BUYBACKS_CACHE_SECONDS.firstPage, BUYBACKS_CACHE_SECONDS.laterPages), () => deps.buybacks.list(mint, q));
    })
    .post(
      "/daemons/:mint/buybacks",
      async ({ request, params }) => {
        const address = await signedIn(deps.authenticate, request);
        const { mint } = parseOrThrow(MintParam, params, "path");
        const agent = await operatorAgent(deps, address, mint);
        const body = parseBody(BuybackBody, await readJson(request));
        return respond(202, await deps.buybacks.request(agent, body, address), SIGNED_IN_CORS);
      },
      { parse: "none" },
    );
};
