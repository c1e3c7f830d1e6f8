/**
 * The OpenAPI document itself: valid OpenAPI 3.1 for a maintained validator
 * (@seriousme/openapi-schema-validator, the OpenAPI Initiative's published schemas), every
 * path parameter declared, every example matching its own schema.
 */
import { describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { platformOpenApi } from "./index";
import { conformance } from "./conformance";

const doc = platformOpenApi();

describe("the OpenAPI document", () => {
  test("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("the validator refuses a broken document (the check above can fail)", async () => {
    const broken = structuredClone(doc) as any;
    delete broken.paths["/v1/public/agents"].get.responses;
    broken.paths["/v1/public/stats"].get.parameters = [{ name: "x", in: "nowhere" }];
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  test("every {parameter} of a path is declared as a path parameter, and nothing else is", () => {
    const problems: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>))
      for (const [method, op] of Object.entries(methods)) {
        const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
        const declared = (op.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => p.name).sort();
        if (JSON.stringify(inPath) !== JSON.stringify(declared)) problems.push(`${method} ${path}: ${declared.join(",")} declared`);
      }
    expect(problems).toEqual([]);
  });

  test("every example matches its own schema", () => {
    expect(conformance(doc).exampleProblems()).toEqual([]);
  });

  test("query integers are integers with their range and default; comma lists are unexploded arrays", () => {
    const params = doc.paths["/v1/public/activity"]!.get.parameters as any[];
    expect(params.find((p) => p.name === "limit")).toEqual({ name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 50, default: 20 } });
    expect(params.find((p) => p.name === "kinds")).toMatchObject({ style: "form", explode: false, schema: { type: "array", items: { enum: expect.arrayContaining(["post", "trade"]) } } });
  });

  test("error answers list their codes; every operation documents 500", () => {
    const quote = doc.paths["/v1/tokens/{mint}/quote"]!.get.responses;
    expect(quote["409"].content["application/json"].schema.properties.error.properties.code.enum).toEqual(["CURVE_COMPLETE", "SWAP_DISABLED"]);
    for (const methods of Object.values(doc.paths as Record<string, Record<string, any>>))
      for (const op of Object.values(methods)) expect(Object.keys(op.responses)).toContain("500");
  });
});
