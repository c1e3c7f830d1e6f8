import { describe, expect, test } from "bun:test";
import type { Idl } from "@coral-xyz/anchor";
import { plainFromAnchor } from "./borsh-reader";
import { discriminatorHex, isEventCpi } from "./event-cpi";
import { DAMM_V2, DBC, type ProgramCoder } from "./program-coder";
import { DAMM_V2_IDL, DBC_IDL } from "./programs";
import { FIXTURE_NAMES, fixtureTx } from "./testing";

const PROGRAMS: [ProgramCoder, Idl][] = [
  [DBC, DBC_IDL],
  [DAMM_V2, DAMM_V2_IDL],
];

/** Anchor's answer in the plain representation, or its error message. */
function anchor(program: ProgramCoder, type: string, data: Uint8Array): { value: unknown } | { error: string } {
  try {
    return { value: plainFromAnchor(program.coder.types.decode(type, Buffer.from(data))) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function ours(program: ProgramCoder, type: string, data: Uint8Array): { value: unknown } | { error: string } {
  try {
    return { value: program.types.decode(type, data, 0) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * Whether a type holds a vec anywhere. Anchor re-walks vec elements to measure them, which on
 * random data (huge counts of nested elements) can take minutes: such types get only the
 * well-formed checks.
 */
function holdsVec(idl: Idl, type: unknown, seen = new Set<string>()): boolean {
  if (typeof type === "string") return false;
  const t = type as Record<string, any>;
  if ("vec" in t) return true;
  if ("option" in t) return holdsVec(idl, t.option, seen);
  if ("array" in t) return holdsVec(idl, t.array[0], seen);
  if ("defined" in t) {
    const name: string = t.defined.name;
    if (seen.has(name)) return false;
    seen.add(name);
    const def = idl.types!.find((d) => d.name === name)!.type as Record<string, any>;
    const fields: any[] =
      def.kind === "struct" ? (def.fields ?? []) : def.kind === "enum" ? def.variants.flatMap((v: any) => v.fields ?? []) : [def.alias];
    return fields.some((f) => holdsVec(idl, f?.type ?? f, seen));
  }
  return false;
}

/** Random bytes biased to 0 and 1, so that bools, options and small enums are mostly valid. */
function fuzzBytes(seed: number, len: number): Uint8Array {
  const b = new Uint8Array(len);
  let x = seed * 2654435761 + 7;
  for (let i = 0; i < len; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    const r = x >>> 24;
    b[i] = r < 96 ? 0 : r < 192 ? 1 : (x >>> 8) & 0xff;
  }
  return b;
}

describe("the IDL readers give what Anchor gives", () => {
  for (const [program, idl] of PROGRAMS) {
    const types = (idl.types ?? []).filter((t) => !t.generics).map((t) => t.name);

    test(`${idl.metadata.name}: every type, random data of every length class`, () => {
      let plain = 0;
      for (const type of types) {
        for (let seed = 0; seed < 60; seed++) {
          const data = fuzzBytes(seed, [0, 3, 17, 64, 200, 700, 1400][seed % 7]! + (seed % 5));
          // the reader alone: when it accepts the data, Anchor must agree exactly
          let value: unknown;
          try {
            value = program.types.readPlain(type, data, 0);
          } catch {
            continue;
          }
          plain++;
          expect(anchor(program, type, data)).toEqual({ value });
        }
      }
      expect(plain).toBeGreaterThan(types.length * 10);
    });

    test(`${idl.metadata.name}: decode (reader or Anchor) always matches Anchor, also on malformed data`, () => {
      for (const type of types.filter((t) => !holdsVec(idl, { defined: { name: t } }))) {
        for (let seed = 0; seed < 40; seed++) {
          const data = fuzzBytes(seed + 1000, (seed * 37) % 400);
          expect(ours(program, type, data)).toEqual(anchor(program, type, data));
        }
      }
    });
  }

  test("every event of the recorded fixtures, whole, cut short and damaged", async () => {
    let events = 0;
    for (const name of FIXTURE_NAMES) {
      const tx = await fixtureTx(name);
      for (const ins of tx.instructions.flatMap((i) => i.inner)) {
        const program = PROGRAMS.find(([p]) => p.programId === ins.programId)?.[0];
        if (program === undefined || !isEventCpi(ins.data)) continue;
        const event = program.eventByDiscriminator.get(discriminatorHex(ins.data, 8));
        if (event === undefined) continue;
        events++;
        const body = ins.data.subarray(16);
        expect(program.types.readPlain(event, body, 0)).toEqual((anchor(program, event, body) as any).value);
        for (let len = 0; len < body.length; len++) {
          const cut = body.slice(0, len);
          expect(ours(program, event, cut)).toEqual(anchor(program, event, cut));
        }
        for (let i = 0; i < body.length; i++) {
          const damaged = body.slice();
          damaged[i] = 2;
          expect(ours(program, event, damaged)).toEqual(anchor(program, event, damaged));
        }
      }
    }
    expect(events).toBeGreaterThan(5);
  });
});
