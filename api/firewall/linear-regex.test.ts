import { describe, expect, test } from "bun:test";
import { compileLinear, NOT_LETTER_OR_DIGIT } from "./linear-regex";

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

const PATTERNS = [
  "\\bignore\\b",
  "^(the )?official (usd coin|usdc)$",
  "\\b(send|give)\\w* .{0,10}?\\bback\\b",
  "[^\\s]*\\/claim",
  "\\bx\\B",
  "(^|[.!?] )now",
  "é+\\b",
  "😀{2}",
  "a$|^b",
];
const ALPHABET = ["ignore", " ", "_", "send", "back", "the", "official", "usd coin", "usdc", "x", "xx", ".", "!", "/claim", "é", "😀", "a", "b", "now", "\n", "ok"];

describe("linear regex", () => {
  test("answers as JavaScript's engine does (word boundaries, anchors, non-ASCII, surrogate pairs)", () => {
    const next = random(1);
    const wrong: string[] = [];
    for (const source of PATTERNS) {
      const ours = compileLinear(source);
      const js = new RegExp(source, "u");
      for (let i = 0; i < 2000; i++) {
        let text = "";
        for (let n = Math.floor(next() * 12); n > 0; n--) text += ALPHABET[Math.floor(next() * ALPHABET.length)];
        if (ours.test(text) !== js.test(text)) wrong.push(`${source} on ${JSON.stringify(text)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("a negative lookahead at the end (not_followed_by) and spans agree with JavaScript", () => {
    const x = compileLinear("\\b(send|give)\\w* (all|the) \\w+\\b");
    const y = compileLinear(" to (holders|winners)");
    const js = /\b(send|give)\w* (all|the) \w+\b(?! to (holders|winners))/u;
    const next = random(2);
    const words = ["send", "give", "all", "the", "sol", "funds", "to", "holders", "winners", "me", " ", "  "];
    for (let i = 0; i < 3000; i++) {
      let text = "";
      for (let n = Math.floor(next() * 10); n > 0; n--) text += words[Math.floor(next() * words.length)] + " ";
      expect([text, x.testNotFollowedBy(text, y)]).toEqual([text, js.test(text)]);
      const spans = [...text.matchAll(new RegExp(x.source, "gu"))].map((m) => [m.index!, m.index! + m[0].length]);
      expect(x.spans(text)).toEqual(spans as [number, number][]);
    }
  });

  test("lookarounds and back-references do not compile", () => {
    for (const source of ["a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(a)\\1"]) expect(() => compileLinear(source)).toThrow(/error parsing regexp/);
  });

  test("the longest match is known for patterns without loops", () => {
    expect(compileLinear("ab{0,3}c").maxLength).toBe(5);
    expect(compileLinear("a.*b").maxLength).toBeNull();
    expect(compileLinear("(x|yy)\\b").maxLength).toBe(2);
  });

  test("the stand-in class is [^\\p{L}\\p{N}]", () => {
    const gap = compileLinear(`^a${NOT_LETTER_OR_DIGIT}{1,3}b$`);
    for (const [text, ok] of [["a b", true], ["a-_!b", true], ["a🔥b", true], ["a\u3000b", true], ["ab", false], ["a1b", false], ["aéb", false], ["a月b", false], ["a    b", false]] as const)
      expect([text, gap.test(text)]).toEqual([text, ok]);
  });

  test("nested quantifiers stay linear (a backtracking engine takes exponential time here)", () => {
    const re = compileLinear("^(a+)+$");
    const started = performance.now();
    expect(re.test("a".repeat(100_000) + "!")).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
