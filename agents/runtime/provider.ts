/**
 * The model provider: an OpenAI-compatible chat-completions API with tool calls, reached
 * through the official `openai` client with the configured base URL and key (OpenRouter,
 * a hosted model or a local server alike). The client's own retries are off: the cycle
 * retries with the product's policy (infra/retry.ts). The key is never logged.
 */
import OpenAI from "openai";
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { CatalogModel } from "../../infra/config";

export type ChatMessage = ChatCompletionMessageParam;
export type ChatTool = ChatCompletionFunctionTool;
export type ToolCall = { id: string; name: string; arguments: string };
export type Usage = { promptTokens: number; completionTokens: number };
export type Completion = { content: string | null; toolCalls: ToolCall[]; usage: Usage | null };
export type CompletionRequest = { model: string; messages: ChatMessage[]; tools: ChatTool[]; signal: AbortSignal; timeoutMs: number };

export type ModelProvider = { name: string; complete(req: CompletionRequest): Promise<Completion> };

/** The provider answered something that is not a chat completion (no choices, no message). */
export class MalformedCompletion extends Error {}

export const OPENAI_COMPATIBLE = "openai-compatible";

export function openAiProvider(o: { url: string; key: string | null }): ModelProvider {
  // a local server takes no key; the client insists on one, so an unused placeholder is sent
  const client = new OpenAI({ baseURL: o.url, apiKey: o.key ?? "none", maxRetries: 0 });
  return {
    // public (stdout lines name it): never the URL, which may be an internal address
    name: OPENAI_COMPATIBLE,
    async complete(req) {
      const r = await client.chat.completions
        .create({ model: req.model, messages: req.messages, tools: req.tools, tool_choice: "auto" }, { signal: req.signal, timeout: req.timeoutMs, maxRetries: 0 })
        .catch((err: unknown) => {
          throw err instanceof SyntaxError ? new MalformedCompletion("the provider's answer is not JSON") : err;
        });
      const message = r?.choices?.[0]?.message;
      if (!message) throw new MalformedCompletion("the provider's answer has no choices[0].message");
      const toolCalls = (message.tool_calls ?? []).flatMap((c) =>
        c.type === "function" ? [{ id: String(c.id), name: String(c.function?.name ?? ""), arguments: String(c.function?.arguments ?? "") }] : [],
      );
      const u = r.usage;
      return {
        content: typeof message.content === "string" ? message.content : null,
        toolCalls,
        usage: u && Number.isFinite(u.prompt_tokens) && Number.isFinite(u.completion_tokens) ? { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens } : null,
      };
    },
  };
}

/** Whether a failed call may succeed when tried again: timeouts, connection errors, 408, 409, 429 and 5xx. */
export function retryable(err: unknown): boolean {
  if (err instanceof MalformedCompletion) return false;
  if (err instanceof OpenAI.APIUserAbortError) return false;
  if (err instanceof OpenAI.APIConnectionError) return true; // timeouts included
  if (err instanceof OpenAI.APIError) return err.status === undefined || [408, 409, 429].includes(err.status) || err.status >= 500;
  return false;
}

/** The cost of a call in micro-USD, rounded up: tokens × the model's price per million tokens. */
export function costMicros(usage: Usage, price: CatalogModel): bigint {
  const scaled = BigInt(Math.max(0, Math.trunc(usage.promptTokens))) * BigInt(price.inputMicrosPerMTok) + BigInt(Math.max(0, Math.trunc(usage.completionTokens))) * BigInt(price.outputMicrosPerMTok);
  return (scaled + 999_999n) / 1_000_000n;
}

/** The agent's model and its price: its own when the catalog lists it, else the catalog's default. */
export function modelOf(models: readonly CatalogModel[], chosen: string | null): CatalogModel {
  return models.find((m) => m.id === chosen) ?? models[0]!;
}

/** What an error says, without anything the provider might echo of the request (the key is never in it). */
export function describeError(err: unknown): string {
  if (err instanceof OpenAI.APIConnectionTimeoutError) return "the model provider timed out";
  if (err instanceof OpenAI.APIConnectionError) return "the model provider could not be reached";
  if (err instanceof OpenAI.APIError) return `the model provider answered ${err.status ?? "an error"}`;
  if (err instanceof MalformedCompletion) return `the model provider's answer was malformed: ${err.message}`;
  if ((err as Error)?.name === "AbortError" || (err as Error)?.name === "TimeoutError") return "the cycle timed out";
  return `the model call failed: ${String((err as Error)?.message ?? err).slice(0, 200)}`;
}
