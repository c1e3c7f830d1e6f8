/**
 * The realtime channel's frames (api/README.md "Realtime channel"), as pure functions: what a
 * client sent, read into a command or an error frame, and the frames the server sends. Topics
 * are `daemon:<mint>` (the agent's stdout) and `price` (the SOL price).
 */
import { base58Mint } from "../public/model";
import * as v from "valibot";

export type Topic = string;
/** `id`: any string or number the client gave, echoed in the answer so it can match answers to requests */
export type RequestId = string | number | undefined;

export type Command =
  | { op: "subscribe"; topics: Topic[]; id: RequestId }
  | { op: "unsubscribe"; topics: Topic[]; id: RequestId }
  | { op: "ping"; id: RequestId };

export type ErrorCode =
  | "BAD_FRAME" // not JSON, not an object, binary
  | "UNKNOWN_OP"
  | "BAD_TOPIC" // `topics` missing, not strings, or a topic that is neither `price` nor `daemon:<base58 mint>`
  | "NOT_FOUND" // an unknown or hidden agent
  | "TOO_MANY_TOPICS"
  | "TOO_MANY_SOCKETS"
  | "RATE_LIMITED"
  | "UNAVAILABLE"; // Postgres cannot be reached: subscribe again later

export type ErrorFrame = { op: "error"; code: ErrorCode; message: string; details?: unknown; id?: string | number };

export const PRICE_TOPIC = "price";
const DAEMON_PREFIX = "daemon:";

/** The agent a topic is about, or null for `price`. */
export const mintOfTopic = (topic: Topic): string | null => (topic.startsWith(DAEMON_PREFIX) ? topic.slice(DAEMON_PREFIX.length) : null);
export const daemonTopic = (mint: string): Topic => DAEMON_PREFIX + mint;

const isTopic = (t: string) => t === PRICE_TOPIC || (t.startsWith(DAEMON_PREFIX) && v.is(base58Mint, t.slice(DAEMON_PREFIX.length)));

export const errorFrame = (code: ErrorCode, message: string, details?: unknown, id?: RequestId): ErrorFrame => ({
  op: "error",
  code,
  message,
  ...(details === undefined ? {} : { details }),
  ...(id === undefined ? {} : { id }),
});

const requestId = (x: unknown): RequestId => (typeof x === "string" && x.length <= 64) || (typeof x === "number" && Number.isFinite(x)) ? x : undefined;

/**
 * A client frame as Elysia gives it (text that looks like JSON already parsed; anything else
 * as it came) into a command, or the error frame that answers it. `maxTopics` bounds one frame's
 * list as it bounds a socket's subscriptions.
 */
export function readFrame(message: unknown, maxTopics: number): Command | ErrorFrame {
  if (message === null || typeof message !== "object" || Array.isArray(message) || ArrayBuffer.isView(message) || message instanceof ArrayBuffer)
    return errorFrame("BAD_FRAME", "a frame is a JSON object with an `op`: subscribe, unsubscribe or ping");
  const frame = message as Record<string, unknown>;
  const id = requestId(frame.id);
  if (frame.op === "ping") return { op: "ping", id };
  if (frame.op !== "subscribe" && frame.op !== "unsubscribe")
    return errorFrame("UNKNOWN_OP", `unknown op ${JSON.stringify(String(frame.op)).slice(0, 40)}: subscribe, unsubscribe or ping`, undefined, id);
  const topics = frame.topics;
  if (!Array.isArray(topics) || topics.length === 0)
    return errorFrame("BAD_TOPIC", "`topics` must be a non-empty array of topics (`price`, `daemon:<mint>`)", undefined, id);
  if (topics.length > maxTopics)
    return errorFrame("TOO_MANY_TOPICS", `at most ${maxTopics} topics per socket`, { max: maxTopics }, id);
  const bad = topics.map((t, i) => [t, i] as const).filter(([t]) => typeof t !== "string" || !isTopic(t));
  if (bad.length)
    return errorFrame(
      "BAD_TOPIC",
      "a topic is `price` or `daemon:<mint>` (a base58 mint address)",
      bad.map(([t, i]) => ({ index: i, topic: typeof t === "string" ? t.slice(0, 64) : null })),
      id,
    );
  return { op: frame.op, topics: [...new Set(topics as string[])], id };
}

export const answerFrame = (op: "subscribed" | "unsubscribed", topics: Topic[], id: RequestId) => ({ op, topics, ...(id === undefined ? {} : { id }) });
export const pongFrame = (id: RequestId) => ({ op: "pong", ...(id === undefined ? {} : { id }) });
export const eventFrame = (topic: Topic, event: "daemon.stdout" | "price.sol", data: unknown) => ({ topic, event, data });
