import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors";
import { decodeCursor, encodeCursor, ACTIVITY_KINDS, CURSOR_POSITIONS } from "./model";

const MINT = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const TRADE_ID = `trade:000412345678:${"5gf6fduSgAssqxYpgRzcCHWcg7yKTdtynsYxU4x7B25YANEKZDFRvFtq22FaGaqReftbErAijndSfcNnSXiW2WZN"}:12:-1`;

describe("cursors", () => {
  test("a cursor gives its position back to the list that made it, and only to it", () => {
    const list = `activity:${MINT}:launch,trade`;
    const cursor = encodeCursor(list, [1760695987000, TRADE_ID]);
    expect(decodeCursor(list, cursor, CURSOR_POSITIONS.activity)).toEqual([1760695987000, TRADE_ID]);
    expect(() => decodeCursor(`activity:${MINT}:launch`, cursor, CURSOR_POSITIONS.activity)).toThrow(ApiError);
    expect(() => decodeCursor(list, cursor, CURSOR_POSITIONS.trades)).toThrow(ApiError);
    expect(() => decodeCursor(list, "not-a-cursor", CURSOR_POSITIONS.activity)).toThrow(ApiError);
  });

  test("a feed asked for every kind still gets a cursor under the 512 characters the API accepts", () => {
    const list = `activity:${MINT}:${[...ACTIVITY_KINDS].sort().join(",")}`;
    expect(encodeCursor(list, [1760695987000, TRADE_ID]).length).toBeLessThan(512);
  });

  test("a cursor made before (naming its list in full) is still read", () => {
    const list = `trades:${MINT}`;
    const sig = TRADE_ID.split(":")[2]!;
    const before = Buffer.from(JSON.stringify({ l: list, p: ["412345678", sig, 1, -1] })).toString("base64url");
    expect(decodeCursor(list, before, CURSOR_POSITIONS.trades)).toEqual(["412345678", sig, 1, -1]);
  });

  test("a cursor naming the right list but holding a position the list never gives is a 400, whatever it holds", () => {
    const forge = (l: string, p: unknown) => Buffer.from(JSON.stringify({ l, p })).toString("base64url");
    // the cursor of the issue: the agents list's tag with words where a sort value goes
    expect(() => decodeCursor("agents:new", "eyJsIjoiYWdlbnRzOm5ldyIsInAiOlsieCIsInkiXX0", CURSOR_POSITIONS.agents)).toThrow(ApiError);
    for (const p of [["-1", MINT], ["1e9", MINT], ["1", "x"], [1, MINT], null, {}, "x"]) expect(() => decodeCursor("agents:new", forge("agents:new", p), CURSOR_POSITIONS.agents)).toThrow(ApiError);
    const sig = TRADE_ID.split(":")[2]!;
    for (const p of [["x", sig, 1, -1], ["18446744073709551616", sig, 1, -1], ["1", sig, 70000, -1], ["1", sig, 1, -2], ["1", sig, 1.5, -1], ["1", "bad sig!", 1, -1]])
      expect(() => decodeCursor(`trades:${MINT}`, forge(`trades:${MINT}`, p), CURSOR_POSITIONS.trades)).toThrow(ApiError);
    for (const p of [[1e300, "id"], [-5, "id"], [1, "x".repeat(300)]]) expect(() => decodeCursor("activity:*:launch", forge("activity:*:launch", p), CURSOR_POSITIONS.activity)).toThrow(ApiError);
    for (const raw of ["bnVsbA", "MTIz", "W10", ""]) expect(() => decodeCursor("agents:new", raw, CURSOR_POSITIONS.agents)).toThrow(ApiError); // null, 123, [], empty
  });
});
