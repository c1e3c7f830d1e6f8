import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { encodeBase58 } from "./base58";
import { Rng } from "./random";

describe("encodeBase58", () => {
  test("matches bs58 on short, long, zero-led and extreme inputs", () => {
    const r = new Rng(9);
    for (const len of [0, 1, 2, 3, 9, 31, 32, 33, 64, 95, 96, 97, 170, 216, 400, 700]) {
      for (let t = 0; t < 60; t++) {
        const b = r.bytes(len);
        if (t % 4 === 0) b.fill(0, 0, Math.min(len, 1 + (t % 5)));
        if (t === 1) b.fill(0);
        if (t === 2) b.fill(255);
        expect(encodeBase58(b)).toBe(bs58.encode(b));
      }
    }
  });
});
