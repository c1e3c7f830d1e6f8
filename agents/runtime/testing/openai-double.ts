/**
 * TEST DOUBLE of an OpenAI-compatible model provider: an HTTP server on 127.0.0.1 that
 * speaks POST /v1/chat/completions as the real APIs do (choices[0].message with
 * tool_calls, usage with prompt_tokens and completion_tokens). What it answers is
 * scripted per request: tool calls, slow answers, HTTP errors, malformed bodies. It
 * records every request and how many ran at once per coin (the mint in the data message).
 */
export type DoubleReply =
  | { kind: "tools"; content?: string | null; calls?: { name: string; arguments: string }[]; usage?: { prompt_tokens: number; completion_tokens: number } | null; delayMs?: number }
  | { kind: "status"; status: number; delayMs?: number }
  | { kind: "raw"; body: string; delayMs?: number };

export type DoubleRequest = { model: string; messages: { role: string; content: string }[]; tools: { function: { name: string } }[]; mint: string | null; authorization: string | null };

export type OpenAiDouble = {
  url: string;
  requests: DoubleRequest[];
  /** the most requests of one coin in flight at once, per coin */
  maxInFlight: Map<string, number>;
  script(fn: (req: DoubleRequest, n: number) => DoubleReply): void;
  stop(): void;
};

const mintOf = (messages: { content: string }[]) => /"mint":"([1-9A-HJ-NP-Za-km-z]{32,44})"/.exec(messages.map((m) => m.content).join("\n"))?.[1] ?? null;

export function startOpenAiDouble(): OpenAiDouble {
  const requests: DoubleRequest[] = [];
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  let reply: (req: DoubleRequest, n: number) => DoubleReply = () => ({ kind: "tools", content: "", calls: [], usage: { prompt_tokens: 10, completion_tokens: 2 } });

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/chat/completions") return Response.json({ error: { message: "not found" } }, { status: 404 });
      const body = (await request.json()) as Omit<DoubleRequest, "mint" | "authorization">;
      const req: DoubleRequest = { ...body, tools: body.tools ?? [], mint: mintOf(body.messages), authorization: request.headers.get("authorization") };
      const n = requests.push(req);
      const key = req.mint ?? "?";
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      maxInFlight.set(key, Math.max(maxInFlight.get(key) ?? 0, inFlight.get(key)!));
      try {
        const r = reply(req, n);
        if (r.delayMs) await Bun.sleep(r.delayMs);
        if (r.kind === "status") return Response.json({ error: { message: `scripted ${r.status}`, type: "server_error" } }, { status: r.status });
        if (r.kind === "raw") return new Response(r.body, { headers: { "content-type": "application/json" } });
        return Response.json({
          id: `chatcmpl-double-${n}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: req.model,
          choices: [{
            index: 0,
            finish_reason: r.calls?.length ? "tool_calls" : "stop",
            message: {
              role: "assistant",
              content: r.content ?? null,
              ...(r.calls?.length ? { tool_calls: r.calls.map((c, i) => ({ id: `call_${n}_${i}`, type: "function", function: c })) } : {}),
            },
          }],
          ...(r.usage === null ? {} : { usage: { ...(r.usage ?? { prompt_tokens: 10, completion_tokens: 2 }), total_tokens: 0 } }),
        });
      } finally {
        inFlight.set(key, inFlight.get(key)! - 1);
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    maxInFlight,
    script(fn) {
      reply = fn;
    },
    stop: () => server.stop(true),
  };
}
