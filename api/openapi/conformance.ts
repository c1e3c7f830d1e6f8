/**
 * For tests: checks a real answer against the OpenAPI document (JSON Schema draft
 * 2020-12 through Ajv, with formats): the status must be one the operation documents,
 * the content type one of that status's, and a JSON body must match its schema. Every
 * check is recorded, so a test can tell which operations it has seen answer.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

type Json = Record<string, any>;
export type Answer = { status: number; headers: Headers; body: unknown };
export type Seen = { operationId: string; status: number };

export function conformance(doc: Json) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();
  const operations = new Map<string, Json>();
  for (const methods of Object.values(doc.paths as Json))
    for (const op of Object.values(methods as Json)) operations.set(op.operationId, op);
  const seen: Seen[] = [];

  /** The problems of one answer of `operationId`; [] when it conforms. */
  function check(operationId: string, answer: Answer): string[] {
    const op = operations.get(operationId);
    if (!op) return [`no operation ${operationId} in the document`];
    seen.push({ operationId, status: answer.status });
    const documented = op.responses[String(answer.status)];
    if (!documented) return [`${operationId} answered ${answer.status}, which it does not document (${Object.keys(op.responses).join(", ")}): ${JSON.stringify(answer.body).slice(0, 300)}`];
    const type = (answer.headers.get("content-type") ?? "").split(";")[0]!.trim();
    const content = documented.content as Json | undefined;
    if (!content) return answer.body === "" || answer.body === null ? [] : [`${operationId} ${answer.status} documents no body`];
    const media = Object.keys(content).find((t) => t.split(";")[0]!.trim() === type);
    if (!media) return [`${operationId} ${answer.status} answered ${type}, documented: ${Object.keys(content).join(", ")}`];
    if (media !== "application/json") return [];
    const key = `${operationId} ${answer.status}`;
    let validate = validators.get(key);
    if (!validate) {
      // the schema with the document's components beside it, so its #/components/schemas/ references resolve
      validate = ajv.compile({ ...content[media].schema, components: doc.components });
      validators.set(key, validate);
    }
    if (validate(answer.body)) return [];
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** Operations without an answer of each kind seen: a success (2xx) and an error (4xx/5xx). */
  function unseen(): { success: string[]; error: string[] } {
    const ids = [...operations.keys()];
    const has = (id: string, ok: (s: number) => boolean) => seen.some((s) => s.operationId === id && ok(s.status));
    return { success: ids.filter((id) => !has(id, (s) => s < 300)), error: ids.filter((id) => !has(id, (s) => s >= 400)) };
  }

  /** Every example of the document (request bodies and answers) against its own schema. */
  function exampleProblems(): string[] {
    const out: string[] = [];
    for (const op of operations.values()) {
      const bodies = [["request", op.requestBody?.content?.["application/json"]], ...Object.entries(op.responses as Json).map(([s, r]) => [s, r.content?.["application/json"]])];
      for (const [where, media] of bodies) {
        if (!media || media.example === undefined) continue;
        const validate = ajv.compile({ ...media.schema, components: doc.components });
        if (!validate(media.example)) out.push(`${op.operationId} ${where} example: ${ajv.errorsText(validate.errors)}`);
      }
    }
    return out;
  }

  return { check, unseen, exampleProblems, operations, seen: () => seen };
}
