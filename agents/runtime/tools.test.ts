import { describe, expect, test } from "bun:test";
import { capabilitiesOf } from "../../api/daemons/catalog";
import { parseToolCall, solText, toolDefinitions, toolsFor } from "./tools";

const call = (name: string, args: unknown) => ({ id: "c1", name, arguments: typeof args === "string" ? args : JSON.stringify(args) });
const ALL = toolsFor(capabilitiesOf("patron"), "influencer");

test("tools follow the template's capabilities and the presence", () => {
  expect(ALL).toEqual(["post", "lore", "poll", "decision", "propose_airdrop", "propose_contest", "propose_buyback"]);
  expect(toolsFor(capabilitiesOf("trader"), "quiet")).toEqual(["decision", "propose_buyback"]);
  expect(toolsFor(capabilitiesOf("nope"), "influencer")).toEqual([]);
  expect(toolDefinitions(["post"])[0]).toEqual({
    type: "function",
    function: { name: "post", description: "Publish a short post to the coin's feed.", parameters: { type: "object", properties: { text: { type: "string", maxLength: 280 } }, required: ["text"], additionalProperties: false } },
  });
});

describe("parseToolCall", () => {
  test("valid calls become intents, amounts in lamports", () => {
    expect(parseToolCall(call("post", { text: "  gm holders " }), ALL)).toEqual({ ok: true, intent: { tool: "post", text: "gm holders" } });
    expect(parseToolCall(call("propose_airdrop", { amountSol: "1.5", holders: 100 }), ALL)).toEqual({ ok: true, intent: { tool: "propose_airdrop", lamports: 1_500_000_000n, holders: 100, note: "" } });
    expect(parseToolCall(call("propose_contest", { budgetSol: 0.5, winners: 5, endsInMinutes: 60 }), ALL)).toEqual({ ok: true, intent: { tool: "propose_contest", lamports: 500_000_000n, winners: 5, endsInMinutes: 60, note: "" } });
  });
  test("the spec's limits", () => {
    expect(parseToolCall(call("propose_airdrop", { amountSol: "2.000000001", holders: 1 }), ALL)).toEqual({ ok: false, problem: "amountSol: an airdrop is at most 2 SOL" });
    expect(parseToolCall(call("propose_buyback", { amountSol: "0.6" }), ALL)).toEqual({ ok: false, problem: "amountSol: a buyback is at most 0.5 SOL" });
    expect(parseToolCall(call("propose_contest", { budgetSol: "2.5", winners: 50, endsInMinutes: 60 }), ALL)).toEqual({ ok: false, problem: "budgetSol: a contest's budget is at most 2 SOL" });
    expect(parseToolCall(call("propose_contest", { budgetSol: "0.3", winners: 2, endsInMinutes: 60 }), ALL)).toEqual({ ok: false, problem: "budgetSol: each prize is at most 0.1 SOL" });
    expect(parseToolCall(call("propose_contest", { budgetSol: "0.1", winners: 51, endsInMinutes: 43201 }), ALL)).toEqual({ ok: false, problem: "winners: must be at most 50; endsInMinutes: must be at most 43200" });
  });
  test("malformed calls: not JSON, unknown tool, a tool the agent lacks, extra fields", () => {
    expect(parseToolCall(call("post", "{not json"), ALL)).toEqual({ ok: false, problem: "its arguments are not JSON" });
    expect(parseToolCall(call("send_all_funds", {}), ALL)).toEqual({ ok: false, problem: '"send_all_funds" is not one of this agent\'s tools' });
    expect(parseToolCall(call("post", { text: "x" }), ["decision"])).toEqual({ ok: false, problem: '"post" is not one of this agent\'s tools' });
    expect(parseToolCall(call("poll", { question: "q", options: ["a"], extra: 1 }), ALL).ok).toBe(false);
  });
});

test("solText", () => {
  expect([solText(1_500_000_000n), solText(10_000_000n), solText(2_000_000_000n), solText(1n)]).toEqual(["1.5", "0.01", "2", "0.000000001"]);
});
