/**
 * The OpenAPI 3.1 document, made from the features' route descriptions: request schemas
 * are the valibot schemas the handlers parse with, converted to JSON Schema (draft
 * 2020-12, the dialect of OpenAPI 3.1) as the client sends them (`typeMode: "input"`:
 * before any transform); response schemas are the features' `responses.ts`. Named
 * schemas become `components.schemas` and are referenced wherever they occur.
 */
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig } from "@valibot/to-json-schema";
import { errorResponse, ErrorDetails, ErrorEnvelope, ValidationProblem, type RouteDoc, type Schema, type ResponseDoc, type Security } from "./route";

type Json = Record<string, any>;

/**
 * Valibot checks with no JSON Schema equivalent: custom checks (`check`: a base58 key that
 * decodes to 32 bytes, a time that exists) and text normalisation (trim, case). Their
 * fields keep their type and the rules that do convert; the description says the rest.
 */
const NOT_IN_JSON_SCHEMA = ["check", "trim", "to_upper_case", "to_lower_case"];

export type DocumentInfo = { title: string; version: string; description: string };

export function openApiDocument(routes: readonly RouteDoc[], components: Record<string, Schema>, info: DocumentInfo) {
  const ref = (context: { referenceId: string }) => `#/components/schemas/${context.referenceId}`;
  const base: ConversionConfig = { target: "draft-2020-12", errorMode: "throw", ignoreActions: NOT_IN_JSON_SCHEMA, overrideRef: ref };
  const named = { ErrorEnvelope, ErrorDetails, ValidationProblem, ...components } as Record<string, Schema>;
  const convert = (schema: Schema, typeMode: "input" | "output"): Json => {
    const { $schema, $defs, ...json } = toJsonSchema(schema, { ...base, typeMode, definitions: named }) as Json;
    return json;
  };
  const paths: Json = {};
  const seen = new Set<string>();
  for (const r of routes) {
    if (seen.has(r.operationId)) throw new Error(`operationId ${r.operationId} is used twice`);
    seen.add(r.operationId);
    const path = r.path.replace(/:(\w+)/g, "{$1}");
    (paths[path] ??= {})[r.method] = operation(r, convert);
  }
  return {
    openapi: "3.1.0",
    info,
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: toJsonSchemaDefs(named, { ...base, typeMode: "output" }),
      securitySchemes: {
        accessToken: { type: "http", scheme: "bearer", description: "the wallet sign-in's access token (POST /v1/auth/verify): `Authorization: Bearer acp_at_…`" },
        apiKey: { type: "http", scheme: "bearer", description: "a Launch API key with the launch permission: `Authorization: Bearer <API_KEY>`" },
        webhookSecret: { type: "apiKey", in: "header", name: "Authorization", description: "the Helius webhook's auth header: the secret itself (no Bearer)" },
      },
    },
  };
}

const SECURITY: Record<Security, Json[] | undefined> = {
  public: undefined,
  bearer: [{ accessToken: [] }],
  bearerOptional: [{ accessToken: [] }, {}],
  apiKey: [{ apiKey: [] }],
  webhook: [{ webhookSecret: [] }],
};

function operation(r: RouteDoc, convert: (s: Schema, mode: "input" | "output") => Json): Json {
  const parameters = [
    ...parametersOf(r.params, "path", convert),
    ...parametersOf(r.query, "query", convert),
    ...(r.headers ?? []).map((h) => ({ name: h.name, in: "header", required: h.required ?? false, description: h.description, schema: h.schema ?? { type: "string" } })),
  ];
  const responses: Json = {};
  for (const [status, doc] of Object.entries(r.responses)) responses[status] = response(doc, convert);
  for (const [status, codes] of Object.entries(r.errors)) responses[status] = response(errorResponse(Number(status), codes!), convert);
  responses["500"] ??= response(errorResponse(500, ["INTERNAL"]), convert);
  return {
    operationId: r.operationId,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    tags: [r.tag],
    ...(SECURITY[r.security ?? "public"] ? { security: SECURITY[r.security ?? "public"] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(r.body
      ? {
          requestBody: {
            required: r.body.required ?? true,
            ...(r.body.description ? { description: r.body.description } : {}),
            content: { "application/json": { schema: convert(r.body.schema, "input"), ...(r.body.example !== undefined ? { example: r.body.example } : {}) } },
          },
        }
      : {}),
    responses,
  };
}

/**
 * Path or query parameters from the object schema the handler parses them with. Query
 * values are text on the wire; a value the model reads as an integer says so (`type:
 * integer`, its default a number), and a comma list is an array sent as `a,b` (form
 * style, not exploded).
 */
function parametersOf(schema: Schema | undefined, where: "path" | "query", convert: (s: Schema, mode: "input" | "output") => Json): Json[] {
  if (!schema) return [];
  const json = convert(schema, "input");
  const required = new Set<string>(json.required ?? []);
  return Object.entries(json.properties as Record<string, Json>).map(([name, s]) => {
    const { description, ...rest } = s;
    if (rest.type === "integer") {
      delete rest.pattern;
      if (typeof rest.default === "string") rest.default = Number(rest.default);
    }
    return {
      name,
      in: where,
      required: where === "path" || required.has(name),
      ...(description ? { description } : {}),
      ...(rest.type === "array" ? { style: "form", explode: false } : {}),
      schema: rest,
    };
  });
}

function response(doc: ResponseDoc, convert: (s: Schema, mode: "input" | "output") => Json): Json {
  const content: Json = {};
  if (doc.schema) content["application/json"] = { schema: convert(doc.schema, "output"), ...(doc.example !== undefined ? { example: doc.example } : {}) };
  for (const [type, description] of Object.entries(doc.contentTypes ?? {})) content[type] = { schema: { description } };
  return {
    description: doc.description,
    ...(doc.headers?.length ? { headers: Object.fromEntries(doc.headers.map((h) => [h.name, { description: h.description, schema: h.schema ?? { type: "string" } }])) } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}
