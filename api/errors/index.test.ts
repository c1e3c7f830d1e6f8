import { expect, test } from "bun:test";
import * as v from "valibot";
import { ApiError, parseOrThrow } from "./index";

test("validation details say what to fix: every problem, missing and unknown keys in plain words", () => {
  const schema = v.strictObject({ creator: v.string("must be a string"), name: v.pipe(v.string(), v.maxLength(3, "must be at most 3 characters")) });
  let error: unknown;
  try {
    parseOrThrow(schema, { name: "long name", extra: true }, "body");
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ApiError);
  const e = error as ApiError & { details?: unknown };
  expect(e.status).toBe(400);
  expect(e.code).toBe("VALIDATION_ERROR");
  expect(e.details).toEqual([
    { field: "creator", message: "is required" },
    { field: "name", message: "must be at most 3 characters" },
    { field: "extra", message: "is not a field of this request" },
  ]);
});
