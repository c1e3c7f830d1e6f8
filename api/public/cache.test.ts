import { describe, expect, test } from "bun:test";
import { createResponseCache } from "./cache";

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
