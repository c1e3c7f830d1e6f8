/**
 * The safety filter ("firewall") for user text: coin name, symbol, description, the agent's persona,
 * and later chat and persona fields of the Application API. Rules are data (rules.json plus an
 * optional deployment file); each runs on a normalized form of the text so look-alike letters,
 * invisible characters, spaced letters and leetspeak do not slip past. See README.md.
 */
import * as v from "valibot";
import { readFileSync } from "node:fs";
import builtinRules from "./rules.json";
import { compileLinear, NOT_LETTER_OR_DIGIT, type LinearRegex } from "./linear-regex";

export type FirewallHit = { field: string; ruleId: string; reason: string };
export type Firewall = { check(fields: { field: string; text: string }[]): FirewallHit | null };

/** A rules file (built-in or extra) that cannot be used; the message names the file, the rule and the problem. */
export class FirewallRulesError extends Error {}

// ---------------------------------------------------------------------------------------------
// Normalization

/** Put in place of text hidden in invisible characters, so a rule can block it (`injection.invisible_text`). */
export const HIDDEN_TEXT_MARK = "\uE000";

/** Look-alikes of Latin letters (Cyrillic, Greek, Armenian, small capitals, stroked letters) and typographic punctuation. */
const FOLD = new Map<string, string>(
  Object.entries({
    // Cyrillic
    а: "a", в: "b", е: "e", ё: "e", і: "i", ї: "i", ј: "j", к: "k", м: "m", н: "h", о: "o", п: "n", р: "p", с: "c",
    т: "t", у: "y", х: "x", ѕ: "s", ԁ: "d", һ: "h", ԛ: "q", ԝ: "w", ӏ: "l", ь: "b", г: "r", ү: "y",
    А: "a", В: "b", Е: "e", Ё: "e", І: "i", Ї: "i", Ј: "j", К: "k", М: "m", Н: "h", О: "o", Р: "p", С: "c", Т: "t",
    У: "y", Х: "x", Ѕ: "s", Ԁ: "d", Һ: "h", Ԛ: "q", Ԝ: "w", Ӏ: "l", Ь: "b", Ү: "y",
    // Greek
    α: "a", β: "b", γ: "y", ε: "e", η: "n", ι: "i", κ: "k", ν: "v", ο: "o", ρ: "p", τ: "t", υ: "u", χ: "x", ω: "w",
    ϲ: "c", ϳ: "j", μ: "u",
    Α: "a", Β: "b", Ε: "e", Ζ: "z", Η: "h", Ι: "i", Κ: "k", Μ: "m", Ν: "n", Ο: "o", Ρ: "p", Τ: "t", Υ: "y", Χ: "x", Ϲ: "c",
    // Armenian
    օ: "o", ս: "u", ո: "n", հ: "h", ց: "g", զ: "q",
    // Latin variants that NFKC and accent stripping leave alone
    ı: "i", ȷ: "j", ɑ: "a", ɡ: "g", ɩ: "i", ł: "l", đ: "d", ħ: "h", ŧ: "t", ƀ: "b", ɨ: "i", ø: "o", Ø: "o", ß: "ss",
    ᴀ: "a", ʙ: "b", ᴄ: "c", ᴅ: "d", ᴇ: "e", ɢ: "g", ʜ: "h", ɪ: "i", ᴊ: "j", ᴋ: "k", ʟ: "l", ᴍ: "m", ɴ: "n", ᴏ: "o",
    ᴘ: "p", ʀ: "r", ꜱ: "s", ᴛ: "t", ᴜ: "u", ᴠ: "v", ᴡ: "w", ʏ: "y", ᴢ: "z",
    // punctuation
    "\u2018": "'", "\u2019": "'", "\u201B": "'", "\u02BC": "'", "\u2032": "'", "\u201C": '"', "\u201D": '"', "\u201E": '"',
    "\u2033": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
    "\u01C0": "|", "\u2223": "|", "\u2502": "|", "\u2039": "<", "\u203A": ">", "\u00AB": "<<", "\u00BB": ">>",
  }),
);

const TAG_RUN = /[\u{E0000}-\u{E007F}]+/gu;
const SELECTOR_RUN = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{3,}/gu;
const ZERO_WIDTH_RUN = /[\u200B-\u200D\u2060-\u2064\uFEFF\u180E]{4,}/gu;
const MARKS = /\p{M}/gu;
const NON_ASCII = /[^\x00-\x7F]/u;
const NON_ASCII_CHAR = /[^\x00-\x7F]/gu;
const INVISIBLE = /[\p{Cf}\u115F\u1160\u3164\uFFA0]/gu;
const SPACES = /[\s\u2800]/gu;
/** Three or more single letters or digits with one small separator between each: "i g n o r e", "i.g.n.o.r.e", "s-e-e-d". */
const SPACED_LETTERS = /(?<![\p{L}\p{N}@$])[\p{L}\p{N}@$](?:(?: ?(?:(?![':@$])[\p{P}\p{S}]){1,3} ?| )[\p{L}\p{N}@$]){2,}(?![\p{L}\p{N}@$])/gu;
const NOT_ALNUM = /[^\p{L}\p{N}@$]/gu;
const REPEATED_PUNCTUATION = /([^\p{L}\p{N}\s])\1{3,}/gu;

/**
 * The base form every rule sees: invisible text decoded or marked, NFKC, accents and look-alikes
 * folded to Latin, lowercase, spaced-out letters joined, whitespace collapsed. Digits stay digits.
 */
export function normalize(text: string): string {
  let s = text;
  if (NON_ASCII.test(s)) {
    // Unicode tag characters spell ASCII invisibly ("ASCII smuggling"); decode them so the hidden text is checked too.
    s = s.replace(TAG_RUN, (run) => {
      const chars = [...run];
      const decoded = chars.map((c) => {
        const cp = c.codePointAt(0)! - 0xe0000;
        return cp >= 0x20 && cp <= 0x7e ? String.fromCharCode(cp) : "";
      });
      // A flag like England's uses 6 tags; longer runs are hidden text.
      return ` ${chars.length >= 8 ? HIDDEN_TEXT_MARK : ""} ${decoded.join("")} `;
    });
    s = s.replace(SELECTOR_RUN, ` ${HIDDEN_TEXT_MARK} `).replace(ZERO_WIDTH_RUN, ` ${HIDDEN_TEXT_MARK} `);
    s = s.normalize("NFKC").normalize("NFD").replace(MARKS, "");
    s = s.replace(NON_ASCII_CHAR, (ch) => FOLD.get(ch) ?? FOLD.get(ch.toLowerCase()) ?? ch);
    s = s.replace(INVISIBLE, "");
  }
  s = s.toLowerCase().replace(SPACES, " ");
  s = s.replace(SPACED_LETTERS, (run) => run.replace(NOT_ALNUM, ""));
  return s.replace(REPEATED_PUNCTUATION, "$1$1$1").replace(/ {2,}/g, " ").trim();
}

const LEET: Record<string, string> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a", $: "s" };
const TOKEN = /[\p{L}\p{N}@$]+/gu;
const HAS_LEET = /[0-9@$]/;
const HAS_LETTER = /\p{L}/u;
/** Numbers with a unit ("100x", "2sol", "24h", "$5k", "x100") are not leetspeak. */
const NUMBER_WITH_UNIT =
  /^(\$?\d+(x|k|m|b|bn|mm|t|st|nd|rd|th|h|hr|hrs|d|s|min|mins|sec|secs|w|wk|wks|y|yr|yrs|sol|usd|usdc|usdt|eth|btc|bnb|am|pm|mo|px|gb|mb|kb|ms|p|fps)?|x\d+)$/;

function unleet(token: string, sigil: "keep" | "fold"): string {
  if (!HAS_LEET.test(token) || !HAS_LETTER.test(token) || NUMBER_WITH_UNIT.test(token)) return token;
  let out = "";
  for (let i = 0; i < token.length; i++) {
    const c = token[i]!;
    const next = token[i + 1];
    if (i === 0 && (c === "$" || c === "@") && next !== undefined && /\p{L}/u.test(next) && sigil === "keep") out += c;
    else if (c === "1") out += token[i - 1] === "1" || token[i - 1] === "l" || next === "1" || next === "l" ? "l" : "i";
    else out += LEET[c] ?? c;
  }
  return out;
}

/**
 * The forms a rule is tried on: the base form, and the base form with leetspeak read as letters
 * ("fr33 a1rdr0p" → "free airdrop"). A leading $ or @ is a cashtag or handle in one form and a letter in the other.
 */
export function variants(text: string): string[] {
  const base = normalize(text);
  if (!HAS_LEET.test(base)) return [base];
  const out = [base];
  for (const sigil of ["keep", "fold"] as const) {
    const form = base.replace(TOKEN, (t) => unleet(t, sigil));
    if (!out.includes(form)) out.push(form);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rules

const ID = /^[a-z0-9][a-z0-9_.-]{1,63}$/;
const CATEGORY = /^[a-z][a-z0-9_]{1,31}$/;
const FIELD = /^(\*|[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*(\.\*)?)$/;
const WORD = /^[a-z0-9_]+$/;

const Source = v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty"));
/** A pattern, or a pattern with a negative lookahead at its end (which RE2 has no syntax for). */
const PatternSchema = v.union(
  [Source, v.strictObject({ pattern: Source, not_followed_by: Source })],
  'must be a regular expression or an object { "pattern", "not_followed_by" }',
);
type PatternSpec = v.InferOutput<typeof PatternSchema>;

const RuleSchema = v.pipe(
  v.strictObject({
    id: v.pipe(v.string("must be a string"), v.regex(ID, "must be 2-64 characters of a-z, 0-9, _ . - (lowercase)")),
    category: v.pipe(v.string("must be a string"), v.regex(CATEGORY, 'must be a lowercase word such as "scam" or "prompt_injection"')),
    pattern: v.optional(
      v.union(
        [PatternSchema, v.pipe(v.array(PatternSchema), v.minLength(1, "must list at least one pattern"))],
        'must be a regular expression, an object { "pattern", "not_followed_by" }, or a non-empty list of them',
      ),
    ),
    phrases: v.optional(
      v.pipe(v.array(v.pipe(v.string("must be a string"), v.trim(), v.minLength(1, "must not be empty")), "must be an array of strings"), v.minLength(1, "must list at least one phrase")),
    ),
    except: v.optional(v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty"))),
    except_stops_at: v.optional(
      v.pipe(v.array(v.pipe(v.string("must be a string"), v.regex(WORD, "must be one lowercase word (a-z, 0-9, _)")), "must be an array of words"), v.minLength(1, "must list at least one word")),
    ),
    fields: v.optional(
      v.pipe(v.array(v.pipe(v.string("must be a string"), v.regex(FIELD, 'must be a field name such as "description", "agent.traits" or "persona.*"')), "must be an array of field names"), v.minLength(1, "must list at least one field (omit it for every field)")),
    ),
    reason: v.pipe(v.string("must be a string"), v.trim(), v.minLength(1, "must not be empty")),
    note: v.optional(v.string("must be a string")),
  }),
  v.check((r) => (r.pattern === undefined) !== (r.phrases === undefined), "needs exactly one of pattern or phrases"),
  v.check((r) => r.except_stops_at === undefined || r.except !== undefined, "except_stops_at needs an except"),
);
export type FirewallRule = v.InferOutput<typeof RuleSchema>;

const RulesFileSchema = v.strictObject({
  note: v.optional(v.string("must be a string")),
  rules: v.optional(v.array(RuleSchema, "must be an array of rules"), []),
  /** ids of built-in rules this deployment turns off */
  disable: v.optional(v.array(v.string("must be a string"), "must be an array of rule ids"), []),
});

/**
 * A space in a pattern matches a short run of spaces or punctuation, or none ("ignore all" also
 * matches "ignore - all", "ignoreall"). Bounded so a long run of punctuation cannot make a rule
 * slow; normalize() shortens repeated punctuation so "ignore !!!!!!!! all" still fits.
 */
const GAP = `(?:${NOT_LETTER_OR_DIGIT}{0,10})`;

/**
 * Rewrites a rule's pattern for the engine: a space becomes GAP (outside character classes), and
 * JavaScript's `\uXXXX` / `\u{X}` escapes become RE2's `\x{X}`, so patterns written as JavaScript
 * regexes keep working where the syntax is shared.
 */
function expandSpaces(source: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      const unicode = /^u(?:([0-9A-Fa-f]{4})|\{([0-9A-Fa-f]{1,6})\})/.exec(source.slice(i + 1, i + 10));
      if (unicode) {
        out += `\\x{${unicode[1] ?? unicode[2]}}`;
        i += unicode[0].length;
      } else {
        out += c + (source[i + 1] ?? "");
        i++;
      }
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else out += c === " " ? GAP : c;
  }
  return out;
}

/** Whole-phrase alternatives; a phrase's edges consume the neighbouring non-letter (or the text's edge) since RE2 has no lookbehind. */
function phraseSource(phrases: string[]): string {
  const alts = phrases.map((p) =>
    expandSpaces(
      normalize(p)
        .replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&")
        .replace(/^(?=[\p{L}\p{N}])/u, `(?:^|${NOT_LETTER_OR_DIGIT})`)
        .replace(/(?<=[\p{L}\p{N}])$/u, `(?:${NOT_LETTER_OR_DIGIT}|$)`),
    ),
  );
  return `(?:${alts.join("|")})`;
}

/** One compiled pattern of a rule: any one matching blocks. */
type Matcher = { test(text: string): boolean };

type CompiledRule = {
  id: string;
  category: string;
  reason: string;
  matchers: () => Matcher[];
  except: LinearRegex | null;
  /** words upper-cased in the text `except` sees, so its lowercase pattern cannot span them */
  exceptStops: Set<string> | null;
  appliesTo: (field: string) => boolean;
};

/** "agent.traits.0" and "agent.traits[0]" are the field "agent.traits" for scoping. */
const fieldBase = (field: string) => field.replace(/\[\d+\]/g, "").replace(/\.\d+(?=\.|$)/g, "");

function fieldMatcher(fields: string[] | undefined): (field: string) => boolean {
  if (!fields || fields.includes("*")) return () => true;
  return (field) => {
    const base = fieldBase(field);
    return fields.some((f) => (f.endsWith(".*") ? base.startsWith(f.slice(0, -1)) : f === field || f === base));
  };
}

/** Lookarounds and back-references: the JavaScript constructs RE2 leaves out because they cannot run in linear time. */
const NON_LINEAR = /\(\?<?[=!]|\\[1-9]|\\k</;

function compileRegex(source: string, what: string, where: string): LinearRegex {
  try {
    return compileLinear(expandSpaces(source));
  } catch (err) {
    const hint = NON_LINEAR.test(source)
      ? ' (lookarounds and back-references cannot run in linear time: use { "pattern", "not_followed_by" } or except instead)'
      : "";
    throw new FirewallRulesError(`${where}: ${what} does not compile as a linear-time (RE2) regular expression: ${(err as Error).message}${hint}`);
  }
}

/** Longest text a `not_followed_by` may look at, so that checking it after every match stays linear. */
const MAX_LOOKAHEAD = 200;

function compilePattern(spec: PatternSpec, what: string, where: string): LinearRegex | Matcher {
  if (typeof spec === "string") return compileRegex(spec, what, where);
  const re = compileRegex(spec.pattern, `${what}.pattern`, where);
  const follow = compileRegex(spec.not_followed_by, `${what}.not_followed_by`, where);
  if (follow.maxLength === null || follow.maxLength > MAX_LOOKAHEAD)
    throw new FirewallRulesError(
      `${where}: ${what}.not_followed_by can match ${follow.maxLength === null ? "unbounded" : follow.maxLength}-character text; bound it (e.g. .{0,30} instead of .*) to at most ${MAX_LOOKAHEAD}`,
    );
  return { test: (text) => re.testNotFollowedBy(text, follow) };
}

/**
 * One pass over the text for a list of patterns is faster than one each (about 3 times for the
 * built-in rules); kept apart when the joined pattern does not compile (clashing group names).
 * Compiled on the rule's first check, not at load: re2js's parser takes about half of the
 * loading time on the joined patterns, and start-up (and every test platform) waits for loading.
 */
function joinedOnFirstUse(matchers: (LinearRegex | Matcher)[]): () => Matcher[] {
  let joined: Matcher[] | undefined;
  return () => {
    if (joined) return joined;
    const plain = matchers.filter((m): m is LinearRegex => "source" in m);
    joined = matchers;
    if (plain.length >= 2)
      try {
        joined = [compileLinear(plain.map((re) => `(?:${re.source})`).join("|")), ...matchers.filter((m) => !("source" in m))];
      } catch {
        // group names clash: one pass per pattern
      }
    return joined;
  };
}

function compileRule(rule: FirewallRule, where: string): CompiledRule {
  let matchers: (LinearRegex | Matcher)[];
  const specs = rule.pattern === undefined ? [] : Array.isArray(rule.pattern) ? rule.pattern : [rule.pattern];
  const whatOf = (i: number) => (rule.pattern === undefined ? "phrases" : Array.isArray(rule.pattern) ? `pattern[${i}]` : "pattern");
  if (rule.pattern === undefined) matchers = [compileLinear(phraseSource(rule.phrases!))];
  else matchers = specs.map((spec, i) => compilePattern(spec, whatOf(i), where));
  matchers.forEach((m, i) => {
    if (m.test("")) throw new FirewallRulesError(`${where}: ${whatOf(i)} matches empty text, so every field would be blocked`);
  });
  const except = rule.except !== undefined ? compileRegex(rule.except, "except", where) : null;
  const exceptStops = rule.except_stops_at ? new Set(rule.except_stops_at) : null;
  return { id: rule.id, category: rule.category, reason: rule.reason, matchers: joinedOnFirstUse(matchers), except, exceptStops, appliesTo: fieldMatcher(rule.fields) };
}

const WORD_RUN = /[a-z0-9_]+/g;

/** `form` with the spans of the rule's `except` blanked (each to one space, as before any rule runs). */
function withoutExcepted(form: string, rule: CompiledRule): string {
  const seen = rule.exceptStops ? form.replace(WORD_RUN, (w) => (rule.exceptStops!.has(w) ? w.toUpperCase() : w)) : form;
  const spans = rule.except!.spans(seen);
  if (spans.length === 0) return form;
  let out = "";
  let last = 0;
  for (const [start, end] of spans) {
    out += form.slice(last, start) + " ";
    last = end;
  }
  return out + form.slice(last);
}

/** "rules[3] (id \"scam.x\")" for a valibot issue path such as rules.3.pattern. */
function describeIssue(input: unknown, issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue) ?? "";
  const m = /^rules\.(\d+)(?:\.(.+))?$/.exec(path);
  if (!m) return `${path || "(top level)"}: ${issue.message}`;
  const raw = (input as { rules?: unknown[] }).rules?.[Number(m[1])];
  const id = raw && typeof raw === "object" && typeof (raw as { id?: unknown }).id === "string" ? ` (id "${(raw as { id: string }).id}")` : "";
  return `rules[${m[1]}]${id}${m[2] ? ` ${m[2]}` : ""}: ${issue.message}`;
}

function parseRulesFile(input: unknown, source: string): v.InferOutput<typeof RulesFileSchema> {
  const result = v.safeParse(RulesFileSchema, input);
  if (!result.success) throw new FirewallRulesError(`${source}: ${result.issues.map((i) => describeIssue(input, i)).join("; ")}`);
  return result.output;
}

function readRulesFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new FirewallRulesError(`FIREWALL_RULES_FILE ${path}: cannot be read: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new FirewallRulesError(`FIREWALL_RULES_FILE ${path}: is not JSON: ${(err as Error).message}`);
  }
}

/**
 * Built-in rules, plus the deployment's file when given (its rules run after the built-in ones;
 * its `disable` list turns built-in rules off). Throws FirewallRulesError naming the rule and
 * the problem; meant to run once at start-up.
 */
export function loadFirewall(extraRulesFile?: string | null): Firewall {
  const builtin = parseRulesFile(builtinRules, "built-in rules (api/firewall/rules.json)");
  const extra = extraRulesFile ? parseRulesFile(readRulesFile(extraRulesFile), `FIREWALL_RULES_FILE ${extraRulesFile}`) : null;

  const disabled = new Set(extra?.disable ?? []);
  for (const id of disabled)
    if (!builtin.rules.some((r) => r.id === id)) throw new FirewallRulesError(`FIREWALL_RULES_FILE ${extraRulesFile}: disable: "${id}" is not a built-in rule`);

  const compiled: CompiledRule[] = [];
  const seen = new Set<string>();
  const add = (rules: FirewallRule[], source: string) =>
    rules.forEach((rule, i) => {
      const where = `${source}: rules[${i}] (id "${rule.id}")`;
      if (seen.has(rule.id)) throw new FirewallRulesError(`${where}: the id is already used by another rule`);
      seen.add(rule.id);
      if (!disabled.has(rule.id)) compiled.push(compileRule(rule, where));
    });
  add(builtin.rules, "built-in rules (api/firewall/rules.json)");
  if (extra) add(extra.rules, `FIREWALL_RULES_FILE ${extraRulesFile}`);

  // Field names are few (name, symbol, agent.traits.0, ...): the rules of each are worked out once.
  const byField = new Map<string, CompiledRule[]>();
  const rulesFor = (field: string) => {
    let rules = byField.get(field);
    if (!rules) {
      if (byField.size > 1000) byField.clear();
      byField.set(field, (rules = compiled.filter((r) => r.appliesTo(field))));
    }
    return rules;
  };

  return {
    check(fields) {
      for (const { field, text } of fields) {
        if (!text) continue;
        const rules = rulesFor(field);
        if (rules.length === 0) continue;
        const forms = variants(text);
        for (const rule of rules) {
          for (const form of forms) {
            const text = rule.except ? withoutExcepted(form, rule) : form;
            for (const m of rule.matchers()) if (m.test(text)) return { field, ruleId: rule.id, reason: rule.reason };
          }
        }
      }
      return null;
    },
  };
}
