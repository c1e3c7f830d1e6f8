import { describe, expect, test } from "bun:test";
import { createLogger } from "../../infra/log";
import type { ClickHouse } from "../../infra/clickhouse";
import { createHolderCounter } from "./counter";

const log = createLogger("error");
const noEngine = {} as ClickHouse;

/** A count that waits until the test lets it finish, recording what it was given and when. */
function heldCounts() {
  const calls: { mints: string[]; at: number }[] = [];
  const releases: (() => void)[] = [];
  let fail = false;
  return {
    calls,
    failNext: () => void (fail = true),
    release: () => releases.shift()?.(),
    waiting: () => releases.length,
    recount: (mints: string[]) => {
      calls.push({ mints: [...mints].sort(), at: performance.now() });
      return new Promise<void>((resolve, reject) =>
        releases.push(() => {
          if (fail) {
            fail = false;
            reject(new Error("injected"));
          } else resolve();
        }),
      );
    },
  };
}

const until = async (what: string, cond: () => boolean, ms = 5000) => {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("holder counter", () => {
  test("coins changed during a count are counted next, no sooner than the interval after the last start", async () => {
    const c = heldCounts();
    const counter = createHolderCounter({ ch: noEngine, log, minIntervalMs: 150, recount: c.recount });
    counter.changed(["a", "b"]);
    counter.changed(["a"]);
    await until("the first count", () => c.waiting() === 1);
    expect(c.calls.map((x) => x.mints)).toEqual([["a", "b"]]);
    counter.changed(["b", "c"]); // during the count
    c.release();
    await until("the second count", () => c.waiting() === 1 && c.calls.length === 2);
    expect(c.calls[1]!.mints).toEqual(["b", "c"]);
    expect(c.calls[1]!.at - c.calls[0]!.at).toBeGreaterThanOrEqual(145);
    c.release();
    await counter.stop();
    expect(c.calls.length).toBe(2);
  });

  test("a failed count puts its coins back", async () => {
    const c = heldCounts();
    const counter = createHolderCounter({ ch: noEngine, log, minIntervalMs: 20, recount: c.recount });
    c.failNext();
    counter.changed(["x"]);
    await until("the first count", () => c.waiting() === 1);
    c.release();
    await until("the retry", () => c.calls.length === 2 && c.waiting() === 1);
    expect(c.calls[1]!.mints).toEqual(["x"]);
    c.release();
    await counter.stop();
  });

  test("flush counts what waits at once, and stop ends the counting", async () => {
    const c = heldCounts();
    const counter = createHolderCounter({ ch: noEngine, log, minIntervalMs: 60_000, recount: c.recount });
    counter.changed(["m"]);
    await until("the first count", () => c.waiting() === 1);
    c.release();
    counter.changed(["n"]); // would wait a minute
    const flushed = counter.flush();
    await until("the flushed count", () => c.waiting() === 1 && c.calls.length === 2);
    c.release();
    await flushed;
    expect(c.calls.map((x) => x.mints)).toEqual([["m"], ["n"]]);
    await counter.stop();
    counter.changed(["o"]);
    await counter.flush();
    expect(c.calls.length).toBe(2);
  });
});

describe("holder counter pacing", () => {
  test("counts take at most their share of the time: after a long count the next waits three times as long", async () => {
    const c = heldCounts();
    const counter = createHolderCounter({ ch: noEngine, log, minIntervalMs: 10, maxBusyShare: 0.25, recount: c.recount });
    counter.changed(["a"]);
    await until("the first count", () => c.waiting() === 1);
    await new Promise((r) => setTimeout(r, 100)); // the count takes at least 100 ms
    counter.changed(["b"]);
    const ended = performance.now();
    c.release();
    await until("the second count", () => c.calls.length === 2);
    expect(c.calls[1]!.at - ended).toBeGreaterThanOrEqual(295);
    c.release();
    await counter.stop();
  });
});
