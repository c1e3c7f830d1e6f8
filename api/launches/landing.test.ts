import { describe, expect, test } from "bun:test";
import { landing } from "./landing";

describe("landing: can a launch's transaction still land, or has it?", () => {
  test("what the chain knows of the signature decides first, whatever the height", () => {
    expect(landing(2000, { confirmed: true, err: null }, 1150)).toEqual({ kind: "confirmed" });
    expect(landing(2000, { confirmed: true, err: { InstructionError: [0, { Custom: 1 }] } }, 1150)).toEqual({ kind: "failed", err: { InstructionError: [0, { Custom: 1 }] } });
    expect(landing(2000, { confirmed: false, err: null }, 1150)).toEqual({ kind: "in_flight" });
  });
  test("unknown signature but the mint exists: it landed (a failed transaction creates no account)", () => {
    expect(landing(2000, null, 1150, true)).toEqual({ kind: "confirmed" });
    expect(landing(2000, { confirmed: true, err: { Custom: 1 } }, 1150, true)).toMatchObject({ kind: "failed" });
  });
  test("unknown: gone only strictly past lastValidBlockHeight", () => {
    expect(landing(1150, null, 1150)).toEqual({ kind: "can_land", until: 1150 });
    expect(landing(1151, null, 1150)).toEqual({ kind: "gone" });
  });
});
