import { describe, expect, test } from "bun:test";
import { createResponseCache } from "./cache";
import { cachedAnswer } from "./http";
import { ApiError } from "../errors";

describe("response cache", () => {
  test("entries expire after their TTL", () => {
    let t = 0;
    const cache = createResponseCache(10, () => t);
    cache.set("a", 1, 2);
    expect(cache.get("a")).toBe(1);
    t = 2000;
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test("when full, the least recently used entry goes: a hot page survives a stream of one-off keys", () => {
    const cache = createResponseCache(3, () => 0);
    cache.set("hot", "page", 60);
    for (let i = 0; i < 100; i++) {
      expect(cache.get("hot")).toBe("page");
      cache.set(`junk-${i}`, i, 60);
    }
    expect(cache.size).toBe(3);
  });
});

describe("cached answers", () => {
  test("equal requests that miss the cache while an answer is computed share that computation; its 404 too", async () => {
    const answer = cachedAnswer(createResponseCache(10));
    let computed = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const produce = async () => {
      computed++;
      await gate;
      return { n: computed };
    };
    const sets = [0, 1, 2].map(() => ({ headers: {} as Record<string, string | number> }));
    const answers = sets.map((set) => answer(set, ["k"], 5, produce));
    const other = answer({ headers: {} }, ["other"], 5, produce);
    release();
    expect((await Promise.all(answers)).map((t) => JSON.parse(t))).toEqual([{ n: 2 }, { n: 2 }, { n: 2 }]);
    expect(JSON.parse(await other)).toEqual({ n: 2 });
    expect(computed).toBe(2);
    expect(sets.map((s) => [s.headers["cache-control"], s.headers["content-type"]])).toEqual(Array(3).fill(["public, max-age=5", "application/json"]));
    // a hit answers the kept JSON text, computed once
    const hit = { headers: {} as Record<string, string | number> };
    expect(await answer(hit, ["k"], 5, produce)).toBe('{"n":2}');
    expect([computed, hit.headers["cache-control"], hit.headers["content-type"]]).toEqual([2, "public, max-age=5", "application/json"]);

    let missing = 0;
    const notFound = async () => {
      missing++;
      await Bun.sleep(5);
      throw new ApiError(404, "NOT_FOUND", "no such coin");
    };
    const errors = await Promise.all([0, 1].map(() => answer({ headers: {} }, ["missing"], 5, notFound).catch((e: ApiError) => e)) as Promise<ApiError>[]);
    expect(missing).toBe(1);
    expect(errors.map((e) => [e.status, e.headers?.["cache-control"]])).toEqual(Array(2).fill([404, "public, max-age=3"]));
  });

  test("without a cache every request computes its own answer", async () => {
    const answer = cachedAnswer(createResponseCache(0));
    let computed = 0;
    const produce = async () => {
      await Bun.sleep(5);
      return ++computed;
    };
    expect(await Promise.all([0, 1].map(() => answer({ headers: {} }, ["k"], 5, produce)))).toEqual(["1", "2"]);
  });
});
