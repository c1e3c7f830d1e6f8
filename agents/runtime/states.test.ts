import { describe, expect, test } from "bun:test";
import { nextState, REASONS, transitionLine } from "./states";
import { nextCycleInMs } from "./schedule";

const base = { state: "asleep" as const, paused: false, fuelMicros: 25_000_000n, provider: true };

describe("nextState", () => {
  test("the budget crossing $20 both ways", () => {
    expect(nextState({ ...base, fuelMicros: 20_000_000n })).toEqual({ state: "awake", reason: "" });
    expect(nextState({ ...base, state: "awake", fuelMicros: 19_999_999n })).toEqual({ state: "asleep", reason: "its budget is under $20.00" });
    expect(nextState({ ...base, state: "awake", fuelMicros: 0n })).toEqual({ state: "asleep", reason: REASONS.budget });
  });
  test("forming stays forming; paused is frozen whatever the budget; no provider sleeps", () => {
    expect(nextState({ ...base, state: "forming" })).toEqual({ state: "forming", reason: "" });
    expect(nextState({ ...base, paused: true, fuelMicros: 0n })).toEqual({ state: "frozen", reason: "paused by its operator" });
    expect(nextState({ ...base, provider: false })).toEqual({ state: "asleep", reason: "no model provider is configured (MODEL_PROVIDER_URL)" });
  });
  test("no SOL price: an awake agent keeps working, an asleep one waits", () => {
    expect(nextState({ ...base, state: "awake", fuelMicros: null })).toEqual({ state: "awake", reason: "" });
    expect(nextState({ ...base, fuelMicros: null })).toEqual({ state: "asleep", reason: "its budget is unknown: no SOL price yet" });
  });
});

test("transition lines", () => {
  expect(transitionLine("asleep", { state: "awake", reason: "" }, 30_000_000n).body).toBe("Awake: the budget is $30.00, enough to work (at least $20.00).");
  expect(transitionLine("frozen", { state: "awake", reason: "" }, 30_000_000n).body).toBe("Awake again: the budget is $30.00, enough to work (at least $20.00).");
  expect(transitionLine("awake", { state: "asleep", reason: REASONS.budget }, 19_500_000n).body).toBe("Asleep: its budget is under $20.00 ($19.50 left).");
  expect(transitionLine("awake", { state: "frozen", reason: REASONS.paused }, 1n).body).toBe("Frozen: the operator paused the agent.");
});

test("the next cycle: the cadence after a success, doubled per failure in a row up to 16 times", () => {
  expect([nextCycleInMs(1000, true, 5), nextCycleInMs(1000, false, 0), nextCycleInMs(1000, false, 1), nextCycleInMs(1000, false, 3), nextCycleInMs(1000, false, 9)]).toEqual([1000, 2000, 4000, 16000, 16000]);
});
