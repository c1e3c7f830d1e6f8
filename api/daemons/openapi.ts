/**
 * The daemon surface in the OpenAPI document (api/openapi): public reads, the operator's
 * routes and the signed-in console. Order of checks on signed-in routes: sign-in (401),
 * the path (400), the agent (404), its operator (403), then the body (400).
 */
import { READ_ERRORS, SIGNED_IN_ERRORS as SIGNED_IN, operatorErrors, type RouteDoc } from "../openapi/route";
import { AutonomyBody, DecisionBody, DirectiveBody, MintIdParams, MintParam, PersonaBody, SpendQuery, StdoutQuery } from "./model";
import * as r from "./responses";

const tag = "Daemons";
const operator = { tag, security: "bearer" as const, params: MintParam };

export const daemonSchemas = {
  DaemonCatalog: r.Catalog, DaemonProfile: r.DaemonProfile, Persona: r.Persona, Fuel: r.Fuel, StdoutLine: r.StdoutLine,
  Directive: r.Directive, Proposal: r.Proposal, Console: r.Console, Approvals: r.Approvals,
};

export const daemonRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/daemons/catalog", operationId: "getDaemonCatalog", tag, summary: "Agent templates, selectable models, persona choices",
    responses: { 200: { description: "the catalog", schema: r.Catalog } },
    errors: READ_ERRORS.fixed,
  },
  {
    method: "get", path: "/v1/daemons/:mint", operationId: "getDaemon", tag, summary: "An agent's public profile",
    params: MintParam,
    responses: { 200: { description: "template, model, state, autonomy, persona, fuel", schema: r.DaemonProfile } },
    errors: READ_ERRORS.byMint,
  },
  {
    method: "get", path: "/v1/daemons/:mint/stdout", operationId: "listDaemonStdout", tag, summary: "An agent's stdout lines, newest first",
    description: "`cursor` is the id of the last line of the page before (`nextCursor`).",
    params: MintParam, query: StdoutQuery,
    responses: { 200: { description: "a page of lines", schema: r.StdoutPage } },
    errors: READ_ERRORS.byMint,
  },
  {
    ...operator, method: "put", path: "/v1/daemons/:mint/persona", operationId: "putDaemonPersona", summary: "Change the persona (operator)",
    description: "Fields given replace the stored ones, fields left out keep theirs; null or \"\" clears a text (`name` goes back to the coin's). Every text passes the safety filter.",
    body: { schema: PersonaBody, example: { presence: "influencer", traits: ["bold", "witty"], motto: "hold on" } },
    responses: { 200: { description: "the persona after the change", schema: r.Persona } },
    errors: operatorErrors({ 422: ["FIREWALL_BLOCKED"] }),
  },
  {
    ...operator, method: "put", path: "/v1/daemons/:mint/autonomy", operationId: "putDaemonAutonomy", summary: "Supervised or autonomous (operator)",
    body: { schema: AutonomyBody, example: { autonomy: "supervised" } },
    responses: { 200: { description: "the autonomy set", schema: r.AutonomyAnswer } },
    errors: operatorErrors(),
  },
  {
    ...operator, method: "get", path: "/v1/daemons/:mint/directives", operationId: "listDaemonDirectives", summary: "Active directives (operator)",
    responses: { 200: { description: "every active directive (one page)", schema: r.DirectiveList } },
    errors: operatorErrors(),
  },
  {
    ...operator, method: "post", path: "/v1/daemons/:mint/directives", operationId: "addDaemonDirective", summary: "Add a directive (operator)",
    body: { schema: DirectiveBody, example: { kind: "goal", body: "reward the top holders every week" } },
    responses: { 201: { description: "the directive added", schema: r.Directive } },
    errors: operatorErrors({ 409: ["TOO_MANY_DIRECTIVES"], 422: ["FIREWALL_BLOCKED"] }),
  },
  {
    ...operator, method: "delete", path: "/v1/daemons/:mint/directives/:id", operationId: "archiveDaemonDirective", summary: "Archive a directive (operator)",
    params: MintIdParams,
    responses: { 200: { description: "the directive, archived", schema: r.Directive } },
    errors: operatorErrors(),
  },
  {
    ...operator, method: "get", path: "/v1/daemons/:mint/spend", operationId: "listDaemonSpend", summary: "Credits and spend, newest first (operator)",
    query: SpendQuery,
    responses: { 200: { description: "a page of spend items and the week's total", schema: r.SpendPage } },
    errors: operatorErrors(),
  },
  {
    ...operator, method: "post", path: "/v1/daemons/:mint/check", operationId: "checkDaemon", summary: "Queue one decision cycle (operator)",
    description: "Once every 2 minutes per agent, across processes.",
    responses: { 202: { description: "queued", schema: r.CheckQueued } },
    errors: operatorErrors({ 409: ["AGENT_NOT_RUNNING", "NO_FUEL"], 429: ["CHECK_TOO_SOON"] }),
  },
  {
    ...operator, method: "post", path: "/v1/daemons/:mint/proposals/:id/decision", operationId: "decideDaemonProposal", summary: "Approve, reject or regenerate a proposal (operator)",
    params: MintIdParams,
    body: { schema: DecisionBody, example: { decision: "approve" } },
    responses: { 200: { description: "the proposal after the decision", schema: r.Proposal } },
    errors: operatorErrors({ 409: ["PROPOSAL_DECIDED", "PROPOSAL_EXPIRED"] }),
  },
  {
    method: "get", path: "/v1/me/console", operationId: "getMyConsole", tag, security: "bearer", summary: "The signed-in wallet's agents at a glance",
    responses: { 200: { description: "one item per agent the wallet launched, newest first", schema: r.Console } },
    errors: { 401: SIGNED_IN, 429: ["RATE_LIMITED"] },
  },
  {
    method: "get", path: "/v1/me/approvals", operationId: "getMyApprovals", tag, security: "bearer", summary: "Proposals waiting for the signed-in wallet",
    responses: { 200: { description: "agents with proposals waiting (not expired), and their total", schema: r.Approvals } },
    errors: { 401: SIGNED_IN, 429: ["RATE_LIMITED"] },
  },
];
