import { describe, expect, test } from "bun:test";
import { bySize } from "./bus";

const m = (key: string, bytes: number) => ({ key, value: "x".repeat(bytes - key.length) });

describe("bySize: sends a broker takes", () => {
  test("runs in order, each at most the bound; a message larger than the bound goes alone", () => {
    const messages = [m("a", 400), m("b", 400), m("c", 300), m("d", 1500), m("e", 100), m("f", 900)];
    const chunks = bySize(messages, 1000);
    expect(chunks.map((c) => c.map((x) => x.key).join(""))).toEqual(["ab", "c", "d", "ef"]);
    expect(chunks.flat()).toEqual(messages);
  });

  test("bytes, not characters: multi-byte text counts for what it weighs", () => {
    const heavy = { key: "k", value: "é".repeat(300) }; // 601 bytes
    expect(bySize([heavy, heavy], 1000)).toHaveLength(2);
    expect(bySize([], 1000)).toEqual([]);
  });
});
