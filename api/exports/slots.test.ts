import { describe, expect, test } from "bun:test";
import { createExportSlots } from "./slots";

describe("export slots per client", () => {
  test("a client gets perClient slots, others are not affected, and a release frees exactly one", () => {
    const slots = createExportSlots(2);
    const a1 = slots.take("a"), a2 = slots.take("a");
    expect(a1).not.toBeNull();
    expect(a2).not.toBeNull();
    expect(slots.take("a")).toBeNull();
    expect(slots.take("b")).not.toBeNull();
    a1!();
    a1!(); // a second call of the same release frees nothing more
    expect(slots.running("a")).toBe(1);
    expect(slots.take("a")).not.toBeNull();
    expect(slots.take("a")).toBeNull();
  });
});
