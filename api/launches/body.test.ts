import { describe, expect, test } from "bun:test";
import { jsonDepth, MAX_BODY_BYTES, MAX_BODY_DEPTH, readJson, readLimited } from "./body";

const post = (body: BodyInit, headers: Record<string, string> = {}) => new Request("http://launch.test/v1/launches", { method: "POST", body, headers });
const code = (p: Promise<unknown>) => p.then(() => "ok", (e) => `${e.status} ${e.code}`);

describe("Launch API body checks", () => {
  test("depth counts brackets outside strings only", () => {
    expect(jsonDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonDepth('{"a":"[[[[{{{{\\"[["}')).toBe(1);
    expect(jsonDepth("[]")).toBe(1);
    expect(jsonDepth('"x"')).toBe(0);
  });

  test("a deeply nested body is 400 VALIDATION_ERROR, never a stack overflow", async () => {
    const deep = "[".repeat(30_000) + "]".repeat(30_000);
    expect(await code(readJson(post(deep)))).toBe("400 VALIDATION_ERROR");
    const ok = "[".repeat(MAX_BODY_DEPTH) + "]".repeat(MAX_BODY_DEPTH);
    expect(await readJson(post(ok))).toBeInstanceOf(Array);
  });

  test("a declared Content-Length over the limit is refused before reading", async () => {
    let pulled = 0;
    const stream = new ReadableStream({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(1024))) });
    const res = await code(readLimited(new Request("http://launch.test/", { method: "POST", body: stream, headers: { "content-length": String(MAX_BODY_BYTES + 1) } })));
    expect(res).toBe("400 VALIDATION_ERROR");
    expect(pulled).toBeLessThanOrEqual(1);
  });

  test("an endless body without Content-Length is cut at the limit", async () => {
    let sent = 0;
    const endless = new ReadableStream({
      pull(c) {
        sent += 4096;
        c.enqueue(new Uint8Array(4096).fill(0x20));
      },
    });
    expect(await code(readLimited(new Request("http://launch.test/", { method: "POST", body: endless })))).toBe("400 VALIDATION_ERROR");
    expect(sent).toBeLessThan(MAX_BODY_BYTES + 3 * 4096);
  });

  test("bad JSON is 400; a body within the limits parses", async () => {
    expect(await code(readJson(post("{nope")))).toBe("400 VALIDATION_ERROR");
    expect(await readJson(post('{"a":1}'))).toEqual({ a: 1 });
  });
});
