/**
 * Every error a client can cause, in the spec's envelope
 * `{ error: { code, message, details? } }`, mapped to a status in one place.
 */
import { Elysia } from "elysia";
import * as v from "valibot";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const notFound = (message: string) => new ApiError(404, "NOT_FOUND", message);
export const validationError = (details: { field: string; message: string }[]) =>
  new ApiError(400, "VALIDATION_ERROR", `${details.length} problem${details.length === 1 ? "" : "s"} with the request: ${details.map((d) => `${d.field}: ${d.message}`).join("; ")}`, details);

export function errorBody(code: string, message: string, details?: unknown) {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/**
 * Parses with valibot or throws 400 VALIDATION_ERROR listing every problem at once; a field a
 * strict object does not know is reported as such. `root` names the input in paths (query, body).
 */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, root = "query"): v.InferOutput<S> {
  const r = v.safeParse(schema, input, { abortEarly: false });
  if (r.success) return r.output;
  throw validationError(
    r.issues.map((i) => ({
      field: v.getDotPath(i) ?? root,
      message: issueMessage(i),
    })),
  );
}

/** valibot's words for a missing or unknown key are about its types; say what a person fixes. */
export function issueMessage(i: v.BaseIssue<unknown>): string {
  const objectType = i.kind === "schema" && (i.type === "object" || i.type === "strict_object" || i.type === "loose_object");
  if (objectType && i.type === "strict_object" && i.expected === "never") return "is not a field of this request";
  if (objectType && i.received === "undefined" && i.expected?.startsWith('"')) return "is required";
  return i.message;
}

/** A JSON answer that no cache keeps. */
export const respond = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });

/** The one onError: typed errors become their status and code; anything else is a logged 500. */
const PUBLIC_CORS = { "access-control-allow-origin": "*" };
/**
 * Paths any browser origin may call (their errors carry CORS too): the Data API, the Application API's public reads,
 * wallet sign-in, and its signed-in routes on /daemons and /me (a bearer token, never a cookie, so no origin gets
 * anything for free).
 */
const PUBLIC_READS = /^\/v1\/(public|tokens|price|feed|daemons|platform|analytics|tokenomics|auth|me)(\/|$)/;

/** The status an error is answered with (the one mapping; the latency histogram reads it too). */
export function errorStatus(error: unknown, code: unknown): number {
  if (error instanceof ApiError) return error.status;
  if (code === "NOT_FOUND") return 404;
  if (code === "PARSE" || code === "VALIDATION") return 400;
  return 500;
}

export const errorHandler = (log: { error(m: string, f?: Record<string, unknown>): void }) =>
  new Elysia({ name: "errors" }).onError({ as: "global" }, ({ error, code, request }) => {
    const cors = PUBLIC_READS.test(new URL(request.url).pathname) ? PUBLIC_CORS : {};
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => respond(status, body, { ...cors, ...headers });
    if (error instanceof ApiError) return json(error.status, errorBody(error.code, error.message, error.details), error.headers);
    if (code === "NOT_FOUND") return json(404, errorBody("NOT_FOUND", `no route for ${request.method} ${new URL(request.url).pathname}`));
    if (code === "PARSE") return json(400, errorBody("VALIDATION_ERROR", "the request body is not valid JSON"));
    if (code === "VALIDATION") return json(400, errorBody("VALIDATION_ERROR", String((error as Error).message).slice(0, 500)));
    log.error("unhandled error", { path: new URL(request.url).pathname, method: request.method, err: error as Error });
    return json(500, errorBody("INTERNAL", "something went wrong on our side; it has been logged"));
  });
