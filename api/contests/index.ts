/**
 * Contest routes under /v1/daemons/:mint/contests: public reads (list, one, the snapshot its
 * draw used) with the daemon surface's conventions (any origin, shared cache, per-client
 * budget), and the operator's create and cancel. Order of checks on the operator's routes, as on
 * the daemon surface: sign-in (401), the path (400), the agent (404), its operator (403), the
 * body (400), then the action's own refusals (409, 422).
 */
import { notFound, parseOrThrow, respond } from "../errors";
import { cachedAnswer, pageTtl, type ClientBudget } from "../public/http";
import type { ResponseCache } from "../public/cache";
import { readJson } from "../launches/body";
import { parseAll } from "../app-public";
import { SIGNED_IN_CORS } from "../auth";
import { MintIdParams, MintParam, parseBody } from "../daemons/model";
import { signedIn, type Authenticate } from "../daemons/operator";
import { operatorAgent } from "../daemons/service";
import { signedInSurface } from "../daemons";
import { agentRecord, type StdoutLine } from "../daemons/store";
import { ContestBody, ContestListQuery, solText, specOf } from "./model";
import * as service from "./service";

export type ContestRouteDeps = service.ContestDeps & ClientBudget & { cache: ResponseCache; authenticate: Authenticate };

/** Seconds a shared cache may keep each answer: a contest moves on a schedule of seconds; a fixed snapshot never changes. */
export const CONTEST_CACHE_SECONDS = { list: 5, one: 5, laterPages: 60, snapshot: 60 };

const OPERATOR_PATHS = /^\/v1\/daemons\/[^/]+\/contests(\/[^/]+\/cancel)?\/?$/;

const operatorLine = (body: string, meta: Record<string, unknown>): StdoutLine => ({ kind: "action", body, meta: { source: "operator", ...meta } });

export const contestRoutes = (deps: ContestRouteDeps) => {
  const cached = cachedAnswer(deps.cache);
  const publicAgent = async (mint: string) => {
    if (!(await agentRecord(deps.sql, mint))) throw notFound(`no agent with mint ${mint}`);
  };
  const body = { parse: "none" as const };

  return signedInSurface(OPERATOR_PATHS, deps)
    .get("/daemons/:mint/contests", ({ params, query, set }) => {
      const [{ mint }, q] = parseAll(() => parseOrThrow(MintParam, params), () => parseOrThrow(ContestListQuery, query));
      return cached(set, ["contests", mint, q], pageTtl(q.cursor, CONTEST_CACHE_SECONDS.list, CONTEST_CACHE_SECONDS.laterPages), async () => {
        await publicAgent(mint);
        return service.listContests(deps, mint, q);
      });
    })
    .get("/daemons/:mint/contests/:id", ({ params, set }) => {
      const { mint, id } = parseOrThrow(MintIdParams, params);
      return cached(set, ["contest", mint, id], CONTEST_CACHE_SECONDS.one, async () => {
        await publicAgent(mint);
        return service.getContest(deps, mint, id);
      });
    })
    .get("/daemons/:mint/contests/:id/snapshot", ({ params, set }) => {
      const { mint, id } = parseOrThrow(MintIdParams, params);
      return cached(set, ["contest-snapshot", mint, id], CONTEST_CACHE_SECONDS.snapshot, async () => {
        await publicAgent(mint);
        return service.getSnapshot(deps, mint, id);
      });
    })
    .post(
      "/daemons/:mint/contests",
      async ({ request, params }) => {
        const address = await signedIn(deps.authenticate, request);
        const { mint } = parseOrThrow(MintParam, params, "path");
        const agent = await operatorAgent(deps, address, mint);
        const req = parseBody(ContestBody, await readJson(request));
        const spec = specOf(req);
        const answer = await service.createContest(deps, agent, spec, {
          by: address,
          ref: req.ref ?? null,
          line: (id) =>
            operatorLine(`The operator opened contest ${id}: "${spec.title}", ${solText(spec.budgetLamports)} SOL for ${spec.winners} winner(s), ending ${spec.endsAt.toISOString()}.`, {
              change: "contest.opened",
              contestId: id.toString(),
            }),
        });
        return respond(202, answer, SIGNED_IN_CORS);
      },
      body,
    )
    .post(
      "/daemons/:mint/contests/:id/cancel",
      async ({ request, params }) => {
        const address = await signedIn(deps.authenticate, request);
        const { mint, id } = parseOrThrow(MintIdParams, params, "path");
        const agent = await operatorAgent(deps, address, mint);
        const record = await service.cancelContest(deps, agent, id, operatorLine(`The operator cancelled contest ${id}.`, { change: "contest.cancelled", contestId: id }));
        return respond(200, record, SIGNED_IN_CORS);
      },
      body,
    );
};
