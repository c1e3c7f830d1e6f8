import { expect, test } from "bun:test";
import { capabilitiesOf } from "../../api/daemons/catalog";
import { demoProvider } from "./demo-provider";
import { cycleMessages } from "./prompt";
import { parseToolCall, toolDefinitions, toolsFor } from "./tools";

test("builtin-demo: the same context gives the same valid call; usage is characters / 4", async () => {
  const tools = toolsFor(capabilitiesOf("baseline"), "influencer");
  const messages = cycleMessages({
    mint: "So11111111111111111111111111111111111111112", symbol: "DEMO", coinName: "Demo", template: "baseline", job: "keeps its community going",
    capabilities: capabilitiesOf("baseline"), autonomy: "supervised", tools, persona: { name: "Ada", motto: "onwards" }, directives: [],
    market: { priceSol: 0.0000123, volume24hSol: "4.5", change24hPct: -2 }, activity: [], recent: [], regenerate: [], now: "2026-01-01T00:00:00.000Z",
  });
  const p = demoProvider();
  const req = { model: "m", messages, tools: toolDefinitions(tools), signal: new AbortController().signal, timeoutMs: 1000 };
  const [a, b] = [await p.complete(req), await p.complete(req)];
  expect(p.name).toBe("builtin-demo");
  expect(a).toEqual(b);
  expect(a.toolCalls).toHaveLength(1);
  const parsed = parseToolCall(a.toolCalls[0]!, tools);
  expect(parsed.ok).toBe(true);
  const chars = messages.map((m) => m.content as string).join("\n").length;
  expect(a.usage!.promptTokens).toBe(Math.ceil(chars / 4));
  expect(a.content).toContain("The market is down");
});
