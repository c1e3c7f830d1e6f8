/**
 * The contest routes in the OpenAPI document (api/openapi): the public reads (list, one, the
 * snapshot a draw used) and the operator's create and cancel. Order of checks on the operator's
 * routes: sign-in (401), the path (400), the agent (404), its operator (403), the body (400), then
 * the action's own refusals (api/README.md, "Contests").
 */
import { READ_ERRORS, operatorErrors, type RouteDoc } from "../openapi/route";
import { TREASURY_TAG as tag, treasuryActionErrors } from "../openapi/treasury";
import { MintIdParams, MintParam } from "../daemons/model";
import { ContestBody, ContestListQuery } from "./model";
import * as r from "./responses";

export const contestSchemas = { Contest: r.Contest, ContestPrize: r.ContestPrize, DrawProof: r.DrawProof, ContestSnapshot: r.ContestSnapshot };

const CREATE = `\`budgetLamports\` at most 2 SOL; \`winners\` 1-50; \`splitBps\` one whole number ≥ 1 per winner, summing to 10,000 (left out: the even split); \
\`weighting\` only for holders_raffle (default balance); \`endsAt\` 1 minute to 30 days ahead; every prize between the minimum payout (890,880 lamports) \
and 0.1 SOL; \`title\` (1-80 characters) and \`rules\` (up to 2,000) pass the safety filter. Every problem of a request is in one 400. \
A \`ref\` this agent used before answers that contest again (\`created: false\`), or 409 REF_REUSED for another request. \
Then, in order: 503 without a chain, CAPABILITY_MISSING (\`program.contest\`), FIREWALL_BLOCKED, VAULT_KEY_MISSING, NOT_COVERED. \
The budget is reserved from the vault's claimed fees with the record.`;

export const contestRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/daemons/:mint/contests", operationId: "listDaemonContests", tag, summary: "An agent's contests, newest first",
    description: "`cursor` is `nextCursor` of the page before (the last contest's id).",
    params: MintParam, query: ContestListQuery,
    responses: { 200: { description: "a page of contests", schema: r.ContestPage } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/daemons/:mint/contests/:id", operationId: "getDaemonContest", tag, summary: "One contest: rules, status, seed, winners, prizes and their payments, the proof",
    params: MintIdParams,
    responses: { 200: { description: "the contest", schema: r.Contest } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/daemons/:mint/contests/:id/snapshot", operationId: "getDaemonContestSnapshot", tag, summary: "The holders a contest's draw used",
    description: "Fixed when the contest ends: 404 before `endsAt`.",
    params: MintIdParams,
    responses: { 200: { description: "the holder snapshot, holders sorted by owner", schema: r.ContestSnapshot } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "post", path: "/v1/daemons/:mint/contests", operationId: "createDaemonContest", tag, security: "bearer", summary: "Open a contest (operator)",
    description: CREATE,
    params: MintParam,
    body: {
      schema: ContestBody,
      example: { kind: "holders_raffle", title: "Weekly raffle", rules: "Hold the coin when it ends.", budgetLamports: "300000000", winners: 3, splitBps: [5000, 3000, 2000], endsAt: "2026-12-01T18:00:00Z", ref: "weekly-2026-48" },
    },
    responses: { 202: { description: "the contest, opened (or found again by its ref)", schema: r.ContestCreated, example: { id: "42", created: true } } },
    errors: treasuryActionErrors({ 422: ["FIREWALL_BLOCKED"] }),
  },
  {
    method: "post", path: "/v1/daemons/:mint/contests/:id/cancel", operationId: "cancelDaemonContest", tag, security: "bearer", summary: "Cancel an open contest before it ends (operator)",
    description: "Its budget is released. Cancelling a cancelled contest answers it again.",
    params: MintIdParams,
    responses: { 200: { description: "the contest, cancelled", schema: r.Contest } },
    errors: operatorErrors({ 409: ["CONTEST_NOT_OPEN"] }),
  },
];
