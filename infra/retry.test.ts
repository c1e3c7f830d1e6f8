import { expect, test } from "bun:test";
import { giveUp, retry } from "./retry";

const fast = { retries: 3, minDelayMs: 1, maxDelayMs: 2 };

test("retries a failing call until it succeeds", async () => {
  let calls = 0;
  const value = await retry(async () => {
    if (++calls < 3) throw new Error("transient");
    return "ok";
  }, fast);
  expect(value).toBe("ok");
  expect(calls).toBe(3);
});

test("gives up after the bound with the last error", async () => {
  let calls = 0;
  await expect(retry(async () => { calls++; throw new Error(`fail ${calls}`); }, fast)).rejects.toThrow("fail 4");
  expect(calls).toBe(4);
});

test("an error refused by shouldRetry or giveUp stops at once", async () => {
  let calls = 0;
  await expect(retry(async () => { calls++; throw new Error("bad request"); }, { ...fast, shouldRetry: () => false })).rejects.toThrow("bad request");
  expect(calls).toBe(1);
  calls = 0;
  await expect(retry(async () => { calls++; giveUp(new Error("fatal")); }, fast)).rejects.toThrow("fatal");
  expect(calls).toBe(1);
});

test("an abort stops the waits", async () => {
  const ctl = new AbortController();
  let calls = 0;
  const run = retry(async () => { calls++; if (calls === 1) ctl.abort(new Error("stopped")); throw new Error("transient"); }, { ...fast, signal: ctl.signal });
  await expect(run).rejects.toThrow();
  expect(calls).toBe(1);
});

test("onRetry is told of each retry, not of the failure that ends it", async () => {
  const told: number[] = [];
  await expect(retry(async () => { throw new Error("down"); }, { ...fast, onRetry: (_e, attempt) => told.push(attempt) })).rejects.toThrow("down");
  expect(told).toEqual([1, 2, 3]);
  told.length = 0;
  await expect(retry(async () => { throw new Error("bad"); }, { ...fast, shouldRetry: () => false, onRetry: (_e, a) => told.push(a) })).rejects.toThrow("bad");
  expect(told).toEqual([]);
});

test("an error that asks for a wait (Retry-After) gets at least that wait", async () => {
  let calls = 0;
  const started = performance.now();
  await retry(async () => { if (++calls < 2) throw Object.assign(new Error("busy"), { waitMs: 300 }); }, { ...fast, waitAtLeastMs: (e) => (e as { waitMs?: number }).waitMs ?? null });
  expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  expect(calls).toBe(2);
});
