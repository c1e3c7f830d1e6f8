/**
 * `builtin-demo`: the deterministic built-in model provider of demo mode (the simulator
 * playing the chain, no MODEL_PROVIDER_URL), so `npm start` shows agents working without
 * any model. Not a language model: it picks one of the agent's tools from a hash of the
 * coin and how many lines it has, and fills it from the data message's market facts.
 * Its usage figures are characters / 4, priced like any model of the catalog.
 */
import type { Completion, CompletionRequest, ModelProvider } from "./provider";

export const DEMO_PROVIDER_NAME = "builtin-demo";

const PHRASES: Record<string, string> = { post: "post an update", lore: "add to the lore", poll: "ask the holders", decision: "publish a decision", propose_buyback: "propose a small buyback" };

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

type Data = { coin?: { mint?: string; symbol?: string }; persona?: { name?: string; motto?: string }; market?: { priceSol?: number; volume24hSol?: string; change24hPct?: number | null } | null; recentLines?: unknown[] };

export function demoProvider(): ModelProvider {
  return {
    name: DEMO_PROVIDER_NAME,
    async complete(req: CompletionRequest): Promise<Completion> {
      const text = req.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
      const json = text.slice(text.indexOf("{", text.indexOf("DATA")));
      let data: Data = {};
      try {
        data = JSON.parse(json) as Data;
      } catch {
        // not our prompt: an empty choice
      }
      const tools = req.tools.map((t) => t.function.name);
      const symbol = data.coin?.symbol ?? "COIN";
      const h = hash(`${data.coin?.mint ?? ""}:${data.recentLines?.length ?? 0}:${text.length}`);
      const pick = tools.filter((t) => t !== "propose_airdrop" && t !== "propose_contest");
      const tool = pick.length ? pick[h % pick.length]! : null;
      const price = data.market?.priceSol ?? 0;
      const volume = data.market?.volume24hSol ?? "0";
      const change = data.market?.change24hPct;
      const mood = change == null ? "quiet" : change >= 0 ? "up" : "down";
      const args: Record<string, Record<string, unknown>> = {
        post: { text: `$${symbol} is ${mood} today: ${price.toPrecision(3)} SOL, ${volume} SOL traded in 24h. ${data.persona?.motto || "Still building."}` },
        lore: { text: `Chapter ${(h % 97) + 1} of $${symbol}: the vault kept its watch while the market was ${mood}.` },
        poll: { question: `What should $${symbol} do next?`, options: ["Hold steady", "Build more", "Celebrate"] },
        decision: { summary: `Keep the $${symbol} vault steady`, reason: `The market is ${mood} with ${volume} SOL traded in 24h; nothing calls for spending now.` },
        propose_buyback: { amountSol: "0.01", note: "a small demo buyback" },
      };
      const calls = tool ? [{ id: `call_${h.toString(16)}`, name: tool, arguments: JSON.stringify(args[tool]) }] : [];
      const completionChars = calls.reduce((n, c) => n + c.arguments.length, 0) + 40;
      return {
        content: tool ? `The market is ${mood}; I will ${PHRASES[tool] ?? tool}.` : "Nothing to do this cycle.",
        toolCalls: calls,
        usage: { promptTokens: Math.ceil(text.length / 4), completionTokens: Math.ceil(completionChars / 4) },
      };
    },
  };
}
