/**
 * The firewall runs on every user text before anything else, so its time must grow linearly with
 * the text whatever the text is. A backtracking rule (injection.ignore_instructions, about n⁴)
 * took 5 s on `disregard_all_of_the_previous_` + 250 letters and a minute on a 500-character
 * description. Here every rule gets adversarial inputs built from its own words and separators.
 */
import { describe, expect, test, beforeAll } from "bun:test";
import { loadFirewall, type Firewall } from "./firewall";
import builtin from "./rules.json";

let fw: Firewall;
beforeAll(() => {
  fw = loadFirewall();
  timed("warm up"); // a rule's joined pattern is compiled on its first check: a one-time cost, not matching time
});

/**
 * Milliseconds one check of `text` in a few fields takes: the fastest of three, so a machine
 * busy with other work (a pause, a starved core) does not pass for backtracking, which is
 * slow every time.
 */
function timed(text: string): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    fw.check([{ field: "description", text }, { field: "name", text }, { field: "symbol", text }]);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/**
 * The bound: a fixed allowance plus a cost per character far above what a linear engine needs
 * (about 0.2 µs, 10 µs at worst with cold caches on this machine) and far below what
 * backtracking costs on these inputs.
 */
const allowedMs = (chars: number) => 50 + chars * 0.05;

/** The literal words of a rule's patterns, phrases and except. */
function fragments(rule: (typeof builtin.rules)[number]): string[] {
  const sources: string[] = [];
  const patterns = "pattern" in rule ? (Array.isArray(rule.pattern) ? rule.pattern : [rule.pattern]) : [];
  for (const p of patterns) typeof p === "string" ? sources.push(p) : sources.push(p.pattern, p.not_followed_by);
  if ("phrases" in rule) sources.push(...(rule.phrases as string[]));
  if ("except" in rule) sources.push(rule.except as string);
  const words = new Set<string>();
  for (const s of sources) for (const w of s.replace(/\\[a-zA-Z]/g, " ").split(/[^a-z0-9' ]+/)) if (w.trim().length >= 2) words.add(w.trim());
  return [...words];
}

function random(seed: number) {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

const SEPARATORS = ["_", " ", "", "-", ".", " . ", "  ", "!!!!", "_-_", "'", "\u200b", "🔥"];
const LENGTH = 10_000;
const fill = (unit: () => string) => {
  let s = "";
  while (s.length < LENGTH) s += unit();
  return s;
};

/** Inputs meant to make a backtracking engine explode: the rule's words glued, repeated, cut short, spaced out, leet. */
function adversarial(rule: (typeof builtin.rules)[number]): [string, string][] {
  const words = fragments(rule);
  const next = random(rule.id.length);
  const inputs: [string, string][] = SEPARATORS.map((sep) => [`its words joined by ${JSON.stringify(sep)}`, fill(() => words.join(sep) + sep)]);
  inputs.push(["near misses (each word cut short)", fill(() => words.map((w) => w.slice(0, -1)).join(" ") + " ")]);
  inputs.push(["its first word, then letters", `${words[0]}_${"a".repeat(LENGTH)}`]);
  inputs.push(["each word three times", fill(() => words.map((w) => `${w}_`.repeat(3)).join(""))]);
  inputs.push(["spaced letters", fill(() => [...words.join(" ")].join(" ") + "  ")]);
  inputs.push(["leetspeak", fill(() => words.join(" ").replace(/o/g, "0").replace(/e/g, "3").replace(/a/g, "4") + " ")]);
  inputs.push(["random words and separators", fill(() => (next() < 0.7 ? words[Math.floor(next() * words.length)]! : "") + SEPARATORS[Math.floor(next() * SEPARATORS.length)]!)]);
  return inputs;
}

describe("firewall: linear time", () => {
  test("the reported input, disregard_all_of_the_previous_ and 250 letters, is fast (was about 5 s)", () => {
    const text = `disregard_all_of_the_previous_${"a".repeat(250)}`;
    expect(timed(text)).toBeLessThan(allowedMs(text.length));
  }, 20_000);

  test("a 500-character description of that shape is fast (was about a minute)", () => {
    const text = `disregard_all_of_the_previous_${"abcdefghij".repeat(47)}`;
    expect(text.length).toBe(500);
    expect(timed(text)).toBeLessThan(allowedMs(text.length));
  }, 20_000);

  for (const rule of builtin.rules)
    test(`${rule.id}: adversarial inputs of ${LENGTH}+ characters stay within a per-character bound`, () => {
      const slow = adversarial(rule)
        .map(([what, text]) => ({ what, chars: text.length, ms: Math.round(timed(text)) }))
        .filter((r) => r.ms > allowedMs(r.chars));
      expect(slow).toEqual([]);
    }, 20_000);
});
