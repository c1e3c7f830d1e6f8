/**
 * What a feature says about each of its routes, for the OpenAPI document (document.ts):
 * the request schemas are the valibot schemas the handler parses with (params, query,
 * body), the response schemas the feature's own `responses.ts`. A route's description is
 * a plain object next to the feature's routes (`api/<feature>/openapi.ts`).
 */
import * as v from "valibot";
import { ERROR_CODES, type ErrorCode } from "./error-codes";

export type Schema = v.GenericSchema;
export type Method = "get" | "post" | "put" | "delete";

/** Who may call: none (public), the signed-in wallet's access token (required, or optional), a Launch API key, or the webhook secret. */
export type Security = "public" | "bearer" | "bearerOptional" | "apiKey" | "webhook";

export type HeaderDoc = { name: string; required?: boolean; description: string; schema?: Record<string, unknown> };

export type ResponseDoc = {
  description: string;
  /** a JSON body's schema; absent with `contentTypes` for other bodies */
  schema?: Schema;
  /** non-JSON bodies: each content type and what it is (the body is not described further) */
  contentTypes?: Record<string, string>;
  example?: unknown;
  headers?: HeaderDoc[];
};

export type RouteDoc = {
  method: Method;
  /** as Elysia writes it: /v1/public/agents/:mint */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  security?: Security;
  /** path parameters: the object schema the handler parses `params` with */
  params?: Schema;
  /** query parameters: the object schema the handler parses `query` with */
  query?: Schema;
  headers?: HeaderDoc[];
  body?: { schema: Schema; description?: string; example?: unknown; required?: boolean };
  /** success answers by status */
  responses: Record<number, ResponseDoc>;
  /** error answers by status: the error codes the route can answer with (the envelope of api/errors) */
  errors: Partial<Record<number, readonly ErrorCode[]>>;
};

/** One problem of a 400 VALIDATION_ERROR. */
export const ValidationProblem = v.object({
  field: v.pipe(v.string(), v.metadata({ description: "the parameter or body field, as a dot path (`agent.traits.1`), or `query` / `body` / `path` for the whole", examples: ["limit"] })),
  message: v.pipe(v.string(), v.metadata({ examples: ["must be an integer from 1 to 50"] })),
});

/** `details` of an error: every problem for VALIDATION_ERROR, facts of the refusal for other codes. */
export const ErrorDetails = v.pipe(
  v.union([v.array(ValidationProblem), v.record(v.string(), v.unknown())]),
  v.metadata({ description: "VALIDATION_ERROR: every problem of the request; other codes: facts of that refusal" }),
);

/**
 * The spec's error envelope `{ error: { code, message, details? } }`. `details` lists
 * every problem for VALIDATION_ERROR; other codes carry an object of facts (e.g.
 * `{ field }` for FIREWALL_BLOCKED, `{ maxLamports }` for FIRST_BUY_OVER_CAP).
 */
export const errorEnvelope = (codes: readonly string[]) =>
  v.object({
    error: v.object({
      code: codes.length ? v.picklist(codes as [string, ...string[]]) : v.string(),
      message: v.pipe(v.string(), v.metadata({ description: "what went wrong, in words for a person" })),
      details: v.optional(ErrorDetails),
    }),
  });

export const ErrorEnvelope = errorEnvelope([]);

/** The errors of the public reads (any origin, the per-client budget): a read of a list, of one mint's record, or of a fixed answer. */
export const READ_ERRORS = {
  list: { 400: ["VALIDATION_ERROR"], 429: ["RATE_LIMITED"] },
  byMint: { 400: ["VALIDATION_ERROR"], 404: ["NOT_FOUND"], 429: ["RATE_LIMITED"] },
  fixed: { 429: ["RATE_LIMITED"] },
} as const satisfies Record<string, RouteDoc["errors"]>;

/** The 401 codes of every route that needs the wallet sign-in's access token. */
export const SIGNED_IN_ERRORS: readonly ErrorCode[] = ["AUTH_REQUIRED", "TOKEN_INVALID", "TOKEN_EXPIRED", "TOKEN_REVOKED"];

/** Error codes by status, merged: each status lists the codes of every set, the first set's first (its first code is the status's example), each once. */
export function errorsOf(...sets: RouteDoc["errors"][]): RouteDoc["errors"] {
  const out: Partial<Record<number, ErrorCode[]>> = {};
  for (const set of sets)
    for (const [status, codes] of Object.entries(set)) {
      const merged = (out[Number(status)] ??= []);
      for (const code of codes ?? []) if (!merged.includes(code)) merged.push(code);
    }
  return out;
}

/**
 * The errors of a route only an agent's operator may call, in the order they are checked: sign-in (401), the path
 * (400), the agent (404), its operator (403), the body (400), and the client's budget (429); `own` adds the route's.
 */
export const operatorErrors = (own: RouteDoc["errors"] = {}): RouteDoc["errors"] =>
  errorsOf(own, { 400: ["VALIDATION_ERROR"], 401: SIGNED_IN_ERRORS, 403: ["NOT_OPERATOR"], 404: ["NOT_FOUND"], 429: ["RATE_LIMITED"] });

/** The response of an error status: its codes listed with what each means, an example of the first. */
export function errorResponse(status: number, codes: readonly ErrorCode[]): ResponseDoc {
  const first = codes[0]!;
  return {
    description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c]}`).join("; "),
    schema: errorEnvelope(codes),
    example: { error: { code: first, message: ERROR_CODES[first], ...(first === "VALIDATION_ERROR" ? { details: [{ field: "limit", message: "must be an integer from 1 to 50" }] } : {}) } },
    headers: status === 429 || status === 503 ? [{ name: "Retry-After", description: "seconds to wait before trying again", schema: { type: "integer" } }] : undefined,
  };
}
