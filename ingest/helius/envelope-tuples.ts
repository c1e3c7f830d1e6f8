/**
 * Envelopes as they cross from a decode worker to the main thread. postMessage's structured
 * clone costs by value and by property name: a webhook call's envelopes as objects took 6-8 µs
 * per transaction to serialize in the worker and 2 to read on the main thread (bench/README.md,
 * 2026-11-27 ~09:10). As tuples (each object's values in the order of its keys, and each distinct
 * key list once per message) they take 5-6 and 1.5, rebuilding included.
 *
 * Generic and exact: every own enumerable property of each envelope and of each of its facts
 * comes back under the same key, in the same order, with the same value (bigints, undefined and
 * all); nothing here knows a fact's fields. The main thread rebuilds objects with one compiled
 * literal per key list (a function made once per list), which JSC builds as fast as a literal.
 */
import type { TxEnvelope } from "../contract/envelope";

/** `shapes[s]`: a key list; an object is `[s, ...its values in that order]`; an envelope's `facts` holds its facts so. */
export type EnvelopeTuples = { shapes: string[][]; envelopes: unknown[][] };

export function toTuples(envelopes: readonly TxEnvelope[]): EnvelopeTuples {
  const shapes: string[][] = [];
  // the shapes seen per fact kind ("" for envelopes): the key lists are compared, not joined into text
  const byKind = new Map<string, number[]>();
  const shapeOf = (o: object, kind: string): number => {
    const keys = Object.keys(o);
    let seen = byKind.get(kind);
    if (seen === undefined) byKind.set(kind, (seen = []));
    next: for (const s of seen) {
      const known = shapes[s]!;
      if (known.length !== keys.length) continue;
      for (let i = 0; i < keys.length; i++) if (known[i] !== keys[i]) continue next;
      return s;
    }
    shapes.push(keys);
    seen.push(shapes.length - 1);
    return shapes.length - 1;
  };
  const tuple = (o: Record<string, unknown>, s: number): unknown[] => {
    const keys = shapes[s]!;
    const t = new Array<unknown>(keys.length + 1);
    t[0] = s;
    for (let i = 0; i < keys.length; i++) t[i + 1] = o[keys[i]!];
    return t;
  };
  const out = new Array<unknown[]>(envelopes.length);
  for (let i = 0; i < envelopes.length; i++) {
    const e = envelopes[i]!;
    const s = shapeOf(e, "");
    const t = tuple(e, s);
    const at = shapes[s]!.indexOf("facts") + 1;
    if (at > 0 && Array.isArray(e.facts)) {
      const facts = new Array<unknown[]>(e.facts.length);
      for (let j = 0; j < facts.length; j++) {
        const f = e.facts[j] as unknown as Record<string, unknown>;
        facts[j] = tuple(f, shapeOf(f, String(f.kind)));
      }
      t[at] = facts;
    }
    out[i] = t;
  }
  return { shapes, envelopes: out };
}

type Build = (t: unknown[]) => Record<string, unknown>;
const builders = new Map<string, Build>();
/** Compiled builders kept, at most: distinct key lists are a handful (the fact kinds, the envelope). */
const MAX_BUILDERS = 1000;

function builder(keys: string[]): Build {
  const id = JSON.stringify(keys);
  let build = builders.get(id);
  if (build === undefined) {
    // computed keys: every key, even "__proto__", becomes an own data property, as structured clone makes it
    build = new Function("t", `return {${keys.map((k, i) => `[${JSON.stringify(k)}]: t[${i + 1}]`).join(", ")}};`) as Build;
    if (builders.size < MAX_BUILDERS) builders.set(id, build);
  }
  return build;
}

export function fromTuples(message: EnvelopeTuples): TxEnvelope[] {
  const build = message.shapes.map(builder);
  const facts = message.shapes.map((keys) => keys.indexOf("facts") + 1);
  const out = new Array<TxEnvelope>(message.envelopes.length);
  for (let i = 0; i < out.length; i++) {
    const t = message.envelopes[i]!;
    const s = t[0] as number;
    const at = facts[s]!;
    if (at > 0 && Array.isArray(t[at])) {
      const list = t[at] as unknown[][];
      for (let j = 0; j < list.length; j++) list[j] = build[list[j]![0] as number]!(list[j]!) as unknown as unknown[];
    }
    out[i] = build[s]!(t) as unknown as TxEnvelope;
  }
  return out;
}
