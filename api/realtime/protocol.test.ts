import { describe, expect, test } from "bun:test";
import { answerFrame, daemonTopic, eventFrame, mintOfTopic, pongFrame, readFrame } from "./protocol";

const MINT = "So11111111111111111111111111111111111111112";

describe("readFrame", () => {
  test("subscribe, unsubscribe and ping; topics deduplicated in order; the request id echoed when it is a short string or a number", () => {
    expect(readFrame({ op: "subscribe", topics: ["price", `daemon:${MINT}`, "price"], id: "a" }, 50)).toEqual({ op: "subscribe", topics: ["price", `daemon:${MINT}`], id: "a" });
    expect(readFrame({ op: "unsubscribe", topics: [`daemon:${MINT}`], id: 3 }, 50)).toEqual({ op: "unsubscribe", topics: [`daemon:${MINT}`], id: 3 });
    expect(readFrame({ op: "ping" }, 50)).toEqual({ op: "ping", id: undefined });
    expect(readFrame({ op: "ping", id: { nested: 1 } }, 50)).toEqual({ op: "ping", id: undefined });
    expect(readFrame({ op: "ping", id: "x".repeat(65) }, 50)).toEqual({ op: "ping", id: undefined });
  });

  test("what is not an object with a known op", () => {
    for (const m of ["text", 42, null, true, [1], new Uint8Array([1]), new ArrayBuffer(2)]) expect(readFrame(m, 50)).toMatchObject({ op: "error", code: "BAD_FRAME" });
    expect(readFrame({ op: "publish" }, 50)).toEqual({ op: "error", code: "UNKNOWN_OP", message: 'unknown op "publish": subscribe, unsubscribe or ping' });
    expect(readFrame({}, 50)).toMatchObject({ code: "UNKNOWN_OP" });
  });

  test("topics: present, non-empty, at most the bound, each `price` or `daemon:<base58 mint>` (every bad one named)", () => {
    expect(readFrame({ op: "subscribe" }, 50)).toMatchObject({ code: "BAD_TOPIC" });
    expect(readFrame({ op: "subscribe", topics: "price" }, 50)).toMatchObject({ code: "BAD_TOPIC" });
    expect(readFrame({ op: "subscribe", topics: [] }, 50)).toMatchObject({ code: "BAD_TOPIC" });
    expect(readFrame({ op: "subscribe", topics: ["price", "price", "price"] }, 2)).toEqual({ op: "error", code: "TOO_MANY_TOPICS", message: "at most 2 topics per socket", details: { max: 2 } });
    expect(readFrame({ op: "unsubscribe", topics: ["Price", `daemon:${MINT}0OIl`, `daemon:${MINT}`, 7, `daemon:`], id: "r" }, 50)).toEqual({
      op: "error",
      code: "BAD_TOPIC",
      message: "a topic is `price` or `daemon:<mint>` (a base58 mint address)",
      details: [
        { index: 0, topic: "Price" },
        { index: 1, topic: `daemon:${MINT}0OIl` },
        { index: 3, topic: null },
        { index: 4, topic: "daemon:" },
      ],
      id: "r",
    });
  });
});

test("topics and answers", () => {
  expect(mintOfTopic(daemonTopic(MINT))).toBe(MINT);
  expect(mintOfTopic("price")).toBeNull();
  expect(answerFrame("subscribed", ["price"], undefined)).toEqual({ op: "subscribed", topics: ["price"] });
  expect(answerFrame("unsubscribed", ["price"], 0)).toEqual({ op: "unsubscribed", topics: ["price"], id: 0 });
  expect(pongFrame("p")).toEqual({ op: "pong", id: "p" });
  expect(eventFrame("price", "price.sol", { usd: 1 })).toEqual({ topic: "price", event: "price.sol", data: { usd: 1 } });
});
