import { expect, test } from "bun:test";
import bs58 from "bs58";
import { decodeBase58, encodeBase58 } from "./base58";

function randomBytes(seed: number, len: number): Uint8Array {
  const b = new Uint8Array(len);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < len; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = (x >>> 16) % 5 === 0 ? 0 : x >>> 24;
  }
  if (seed % 4 === 0) b.fill(0, 0, Math.min(len, seed % 7)); // leading zero bytes become '1's
  return b;
}

test("identical to bs58 both ways", () => {
  for (let seed = 0; seed < 3000; seed++) {
    const bytes = randomBytes(seed, seed % 320);
    const s = bs58.encode(bytes);
    expect(encodeBase58(bytes)).toBe(s);
    expect(decodeBase58(s)).toEqual(bytes);
  }
});

test("edge cases", () => {
  expect(decodeBase58("")).toEqual(new Uint8Array(0));
  expect(encodeBase58(new Uint8Array(0))).toBe("");
  expect(decodeBase58("111")).toEqual(new Uint8Array(3));
  expect(encodeBase58(new Uint8Array(32))).toBe("11111111111111111111111111111111");
  expect(encodeBase58(bs58.decode("dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN"))).toBe(
    "dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN",
  );
});

test("characters outside the alphabet give null", () => {
  for (const s of ["0", "O", "I", "l", "abc+", "é", " 2"]) expect(decodeBase58(s)).toBeNull();
});

test("any digit string decodes as bs58 does, including runs of the largest digit", () => {
  const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let x = 12345;
  for (let len = 0; len < 400; len++) {
    let s = "";
    for (let i = 0; i < len; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      s += ALPHABET[(x >>> 16) % 58];
    }
    for (const t of [s, "z".repeat(len), "1".repeat(len % 5) + "z".repeat(len), "2" + "1".repeat(len)])
      expect(decodeBase58(t)).toEqual(new Uint8Array(bs58.decode(t)));
  }
});
