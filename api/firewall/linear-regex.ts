/**
 * Regular expressions that run in time linear in the text, whatever the pattern: the firewall's
 * rules see every user text, so one badly nested pattern must not be able to freeze the process
 * (a backtracking engine took a minute on a 500-character description).
 *
 * Patterns are parsed and compiled by re2js (a port of RE2: no lookarounds, no back-references,
 * which is what makes linear matching possible). re2js's own fast path, a lazy DFA, gives up on
 * any empty-width assertion (`\b`, `^`, `$`) and falls back to its NFA, about 100 times slower;
 * nearly every rule uses `\b`. So the match test here is our own lazy DFA over re2js's compiled
 * program that also carries "what was the previous character" in its states, as RE2's C++ DFA
 * does: each text character is one cached table lookup, and a cache miss costs at most one pass
 * over the program. Spans (for blanking) still come from re2js's NFA, which is linear too.
 *
 * `NOT_LETTER_OR_DIGIT` stands for `[^\p{L}\p{N}]`, which the firewall puts in every pattern dozens
 * of times (a space in a rule). Written out, that class is ~750 ranges, and re2js's parser turns
 * sub-expressions into strings to memoize its size checks: loading the rules took over a minute.
 * So it is written as a two-character stand-in class and the compiled instructions for it are
 * given the real test.
 */
import { RE2JS } from "re2js";

/** What the DFA needs of re2js's compiled program (`RE2JS#re2Input.prog`, not in its type declarations). */
type Inst = { op: number; out: number; arg: number; runes: number[]; matchRune(r: number): boolean };
type Prog = { inst: Inst[]; start: number };

// re2js's instruction and empty-width codes (Go's regexp/syntax numbering, which re2js keeps).
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE_ANY_NOT_NL = 11;
const BEGIN_LINE = 0x01;
const END_LINE = 0x02;
const BEGIN_TEXT = 0x04;
const END_TEXT = 0x08;
const WORD_BOUNDARY = 0x10;
const NO_WORD_BOUNDARY = 0x20;

/** Character context of the previous position, kept in each DFA state. */
const AT_BEGIN = 1;
const AFTER_WORD = 2;
const AFTER_NEWLINE = 4;
const END = -1;

/** Beyond this many states a DFA's cache is dropped and rebuilt as needed (bounded memory; each step stays at most one pass over the program). */
const MAX_STATES = 2000;
/** Non-ASCII characters cached per state; more are computed on each use. */
const MAX_OTHER_PER_STATE = 64;

/** Stands for `[^\p{L}\p{N}]` in a pattern (see above); two noncharacters, so it compiles to a class instruction. */
export const NOT_LETTER_OR_DIGIT = "[\\x{10FFFE}-\\x{10FFFF}]";
const STAND_IN_LO = 0x10fffe;
const STAND_IN_HI = 0x10ffff;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const ASCII_NOT_LETTER_OR_DIGIT = Array.from({ length: 128 }, (_, c) => !LETTER_OR_DIGIT.test(String.fromCharCode(c)));
const notLetterOrDigit = (c: number) => (c < 128 ? ASCII_NOT_LETTER_OR_DIGIT[c]! : !LETTER_OR_DIGIT.test(String.fromCodePoint(c)));

const isWord = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

type Step = { match: boolean; next: State };
type State = {
  pcs: Int32Array;
  prev: number;
  ascii: (Step | undefined)[];
  other: Map<number, Step>;
  /** whether a match ends at the end of the text, once known */
  atEnd?: boolean;
};

/** A lazy DFA over one program; `anchored` DFAs only match from where they start. */
class Dfa {
  private states = new Map<string, State>();
  private starts = new Map<number, State>();
  private readonly mark: Uint32Array;
  private generation = 0;

  constructor(
    private readonly prog: Prog,
    private readonly anchored: boolean,
  ) {
    this.mark = new Uint32Array(prog.inst.length);
  }

  start(prev: number): State {
    let s = this.starts.get(prev);
    if (!s) this.starts.set(prev, (s = this.state([this.prog.start], prev)));
    return s;
  }

  /** The step for character `c` (a code point, or END) from `s`: whether a match ends just before `c`, and the next state. */
  step(s: State, c: number): Step {
    if (c >= 0 && c < 128) return s.ascii[c] ?? (s.ascii[c] = this.compute(s, c));
    let st = s.other.get(c);
    if (!st) {
      st = this.compute(s, c);
      if (s.other.size < MAX_OTHER_PER_STATE) s.other.set(c, st);
    }
    return st;
  }

  /** Whether a match ends at the end of the text when the DFA is in `s` there. */
  matchAtEnd(s: State): boolean {
    if (s.atEnd === undefined) s.atEnd = this.closure(s, END).match;
    return s.atEnd;
  }

  private compute(s: State, c: number): Step {
    const { match, runes } = this.closure(s, c);
    const next: number[] = [];
    for (const pc of runes) {
      const inst = this.prog.inst[pc]!;
      if (inst.matchRune(c)) next.push(inst.out);
    }
    if (!this.anchored) next.push(this.prog.start);
    return { match, next: this.state(next, (isWord(c) ? AFTER_WORD : 0) | (c === 10 ? AFTER_NEWLINE : 0)) };
  }

  /** Follows the empty transitions of `s` with the assertions that hold between its previous character and `c`. */
  private closure(s: State, c: number): { match: boolean; runes: number[] } {
    let ctx = 0;
    if (s.prev & AT_BEGIN) ctx |= BEGIN_TEXT | BEGIN_LINE;
    if (s.prev & AFTER_NEWLINE) ctx |= BEGIN_LINE;
    if (c === END) ctx |= END_TEXT | END_LINE;
    if (c === 10) ctx |= END_LINE;
    ctx |= (s.prev & AFTER_WORD) !== 0 !== (c !== END && isWord(c)) ? WORD_BOUNDARY : NO_WORD_BOUNDARY;

    if (++this.generation === 0xffffffff) {
      this.mark.fill(0);
      this.generation = 1;
    }
    const gen = this.generation;
    const stack = Array.from(s.pcs);
    const runes: number[] = [];
    let match = false;
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (this.mark[pc] === gen) continue;
      this.mark[pc] = gen;
      const inst = this.prog.inst[pc]!;
      switch (inst.op) {
        case MATCH:
          match = true;
          break;
        case ALT:
        case ALT_MATCH:
          stack.push(inst.arg, inst.out);
          break;
        case NOP:
        case CAPTURE:
          stack.push(inst.out);
          break;
        case EMPTY_WIDTH:
          if ((inst.arg & ~ctx) === 0) stack.push(inst.out);
          break;
        default:
          if (inst.op >= RUNE && inst.op <= RUNE_ANY_NOT_NL) runes.push(pc);
      }
    }
    return { match, runes };
  }

  private state(pcs: number[], prev: number): State {
    const sorted = Int32Array.from(new Set(pcs)).sort();
    const key = `${prev}:${sorted.join(",")}`;
    let s = this.states.get(key);
    if (!s) {
      if (this.states.size >= MAX_STATES) {
        // Cached steps point at other states: drop them too, or the old states would stay reachable.
        for (const old of this.states.values()) {
          old.ascii = new Array(128);
          old.other.clear();
        }
        this.states.clear();
        this.starts.clear();
      }
      s = { pcs: sorted, prev, ascii: new Array(128), other: new Map() };
      this.states.set(key, s);
    }
    return s;
  }
}

/** The context a match starting at `pos` sees before it. */
function prevContext(text: string, pos: number): number {
  if (pos === 0) return AT_BEGIN;
  const c = text.charCodeAt(pos - 1);
  return (isWord(c) ? AFTER_WORD : 0) | (c === 10 ? AFTER_NEWLINE : 0);
}

export type LinearRegex = {
  readonly source: string;
  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** Whether some match ends at a position where `follow` does not match (a negative lookahead at the end of the pattern). */
  testNotFollowedBy(text: string, follow: LinearRegex): boolean;
  /** Whether the pattern matches text starting exactly at `pos`. */
  matchesAt(text: string, pos: number): boolean;
  /** The `[start, end)` offsets of the leftmost-first matches, in order and not overlapping (what `String#replace` with a global pattern would replace). */
  spans(text: string): [start: number, end: number][];
  /** The most characters a match can span, or null when unbounded (the pattern loops). */
  readonly maxLength: number | null;
};

/** The longest path through the program counted in characters, or null when it has a loop. */
function longestMatch(prog: Prog): number | null {
  const memo = new Map<number, number>();
  const onPath = new Set<number>();
  const walk = (pc: number): number | null => {
    const known = memo.get(pc);
    if (known !== undefined) return known;
    if (onPath.has(pc)) return null;
    onPath.add(pc);
    const inst = prog.inst[pc]!;
    let len: number | null;
    if (inst.op === MATCH) len = 0;
    else if (inst.op === ALT || inst.op === ALT_MATCH) {
      const a = walk(inst.out);
      const b = a === null ? null : walk(inst.arg);
      len = a === null || b === null ? null : Math.max(a, b);
    } else if (inst.op >= RUNE && inst.op <= RUNE_ANY_NOT_NL) {
      const rest = walk(inst.out);
      len = rest === null ? null : rest + 1;
    } else if (inst.op === NOP || inst.op === CAPTURE || inst.op === EMPTY_WIDTH) len = walk(inst.out);
    else len = 0; // FAIL: no match through here
    onPath.delete(pc);
    if (len !== null) memo.set(pc, len);
    return len;
  };
  return walk(prog.start);
}

/**
 * Compiled patterns by source. re2js's parser is slow on large patterns (about a second for the
 * built-in rules), and the same rules are loaded again by tests and every firewall built in a
 * process; a compiled pattern is immutable apart from its DFA caches, so sharing it is safe.
 */
const compiled = new Map<string, LinearRegex>();

/**
 * Compiles an RE2 pattern. Throws re2js's syntax error (its message names the construct, e.g.
 * "invalid or unsupported Perl syntax: `(?!`") for what RE2 does not support.
 */
export function compileLinear(source: string): LinearRegex {
  let re = compiled.get(source);
  if (!re) compiled.set(source, (re = compileUncached(source)));
  return re;
}

function compileUncached(source: string): LinearRegex {
  const re = RE2JS.compile(source);
  const prog = (re as unknown as { re2Input: { prog: Prog } }).re2Input.prog;
  // The stand-in's instructions get the real test; re2js's NFA (spans) calls matchRune for class instructions too.
  for (const inst of prog.inst)
    if (inst.op === RUNE && inst.runes.length === 2 && inst.runes[0] === STAND_IN_LO && inst.runes[1] === STAND_IN_HI) inst.matchRune = notLetterOrDigit;
  const search = new Dfa(prog, false);
  const anchored = new Dfa(prog, true);

  const self: LinearRegex = {
    source,
    maxLength: longestMatch(prog),
    test(text) {
      let s = search.start(AT_BEGIN);
      for (let i = 0; i < text.length; ) {
        const c = text.codePointAt(i)!;
        const st = search.step(s, c);
        if (st.match) return true;
        s = st.next;
        i += c > 0xffff ? 2 : 1;
      }
      return search.matchAtEnd(s);
    },
    testNotFollowedBy(text, follow) {
      let s = search.start(AT_BEGIN);
      for (let i = 0; i < text.length; ) {
        const c = text.codePointAt(i)!;
        const st = search.step(s, c);
        if (st.match && !follow.matchesAt(text, i)) return true;
        s = st.next;
        i += c > 0xffff ? 2 : 1;
      }
      return search.matchAtEnd(s) && !follow.matchesAt(text, text.length);
    },
    matchesAt(text, pos) {
      let s = anchored.start(prevContext(text, pos));
      for (let i = pos; i < text.length; ) {
        const c = text.codePointAt(i)!;
        const st = anchored.step(s, c);
        if (st.match) return true;
        s = st.next;
        if (s.pcs.length === 0) return false;
        i += c > 0xffff ? 2 : 1;
      }
      return anchored.matchAtEnd(s);
    },
    spans(text) {
      // Offsets need re2js's NFA (slower, still linear); most texts have no match, which the DFA tells first.
      if (!self.test(text)) return [];
      const out: [number, number][] = [];
      const m = re.matcher(text);
      while (m.find()) out.push([m.start(), m.end()]);
      return out;
    },
  };
  return self;
}
