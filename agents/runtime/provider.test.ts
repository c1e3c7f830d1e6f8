import { afterAll, expect, test } from "bun:test";
import { costMicros, describeError, modelOf, openAiProvider, retryable } from "./provider";
import { startOpenAiDouble } from "./testing/openai-double";

const double = startOpenAiDouble();
afterAll(() => double.stop());
const req = (timeoutMs = 5000) => ({ model: "house/small", messages: [{ role: "user" as const, content: "hi" }], tools: [], signal: new AbortController().signal, timeoutMs });

test("cost: usage × the catalog price, micro-USD rounded up", () => {
  const price = { id: "m", inputMicrosPerMTok: 150_000, outputMicrosPerMTok: 600_000 }; // $0.15 / $0.60 per million
  expect(costMicros({ promptTokens: 1_000_000, completionTokens: 1_000_000 }, price)).toBe(750_000n);
  expect(costMicros({ promptTokens: 1000, completionTokens: 200 }, price)).toBe(270n); // 150 + 120
  expect(costMicros({ promptTokens: 1, completionTokens: 0 }, price)).toBe(1n); // 0.15 rounded up
  expect(modelOf([price, { ...price, id: "n" }], "n").id).toBe("n");
  expect(modelOf([price], "unknown").id).toBe("m");
});

test("the openai client against the loopback double: tool calls, usage, the key as a bearer token", async () => {
  double.script(() => ({ kind: "tools", content: "ok", calls: [{ name: "post", arguments: '{"text":"gm"}' }], usage: { prompt_tokens: 12, completion_tokens: 3 } }));
  const p = openAiProvider({ url: double.url, key: "sk-test-secret" });
  expect(await p.complete(req())).toEqual({ content: "ok", toolCalls: [{ id: `call_${double.requests.length}_0`, name: "post", arguments: '{"text":"gm"}' }], usage: { promptTokens: 12, completionTokens: 3 } });
  expect(double.requests.at(-1)!.authorization).toBe("Bearer sk-test-secret");
  expect(p.name).toBe("openai-compatible");
});

test("errors: 5xx and timeouts are retryable, 4xx and malformed answers are not; none names the key", async () => {
  const p = openAiProvider({ url: double.url, key: "sk-test-secret" });
  const failure = (f: () => Promise<unknown>) => f().then(() => null, (e: unknown) => e);
  double.script(() => ({ kind: "status", status: 503 }));
  const e503 = await failure(() => p.complete(req()));
  expect([retryable(e503), describeError(e503)]).toEqual([true, "the model provider answered 503"]);
  double.script(() => ({ kind: "status", status: 400 }));
  const e400 = await failure(() => p.complete(req()));
  expect([retryable(e400), describeError(e400)]).toEqual([false, "the model provider answered 400"]);
  double.script(() => ({ kind: "raw", body: '{"id":"x","choices":[]}' }));
  const bad = await failure(() => p.complete(req()));
  expect([retryable(bad), describeError(bad)]).toEqual([false, "the model provider's answer was malformed: the provider's answer has no choices[0].message"]);
  double.script(() => ({ kind: "raw", body: "not json at all" }));
  const notJson = await failure(() => p.complete(req()));
  expect([retryable(notJson), describeError(notJson)]).toEqual([false, "the model provider's answer was malformed: the provider's answer is not JSON"]);
  double.script(() => ({ kind: "tools", delayMs: 1500 }));
  const slow = await failure(() => p.complete(req(200)));
  expect([retryable(slow), describeError(slow)]).toEqual([true, "the model provider timed out"]);
  for (const e of [e503, e400, bad, slow]) expect(String((e as Error).message)).not.toContain("sk-test-secret");
});
