import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors";
import { decodeCursor, encodeCursor, ACTIVITY_KINDS } from "./model";

const MINT = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const TRADE_ID = `trade:000412345678:${"5gf6fduSgAssqxYpgRzcCHWcg7yKTdtynsYxU4x7B25YANEKZDFRvFtq22FaGaqReftbErAijndSfcNnSXiW2WZN"}:12:-1`;

describe("cursors", () => {
  test("a cursor gives its position back to the list that made it, and only to it", () => {
    const list = `activity:${MINT}:launch,trade`;
    const cursor = encodeCursor(list, [1760695987000, TRADE_ID]);
    expect(decodeCursor(list, cursor, ["number", "string"])).toEqual([1760695987000, TRADE_ID]);
    expect(() => decodeCursor(`activity:${MINT}:launch`, cursor, ["number", "string"])).toThrow(ApiError);
    expect(() => decodeCursor(list, cursor, ["string", "string"])).toThrow(ApiError);
    expect(() => decodeCursor(list, "not-a-cursor", ["number", "string"])).toThrow(ApiError);
  });

  test("a feed asked for every kind still gets a cursor under the 512 characters the API accepts", () => {
    const list = `activity:${MINT}:${[...ACTIVITY_KINDS].sort().join(",")}`;
    expect(encodeCursor(list, [1760695987000, TRADE_ID]).length).toBeLessThan(512);
  });

  test("a cursor made before (naming its list in full) is still read", () => {
    const list = `trades:${MINT}`;
    const before = Buffer.from(JSON.stringify({ l: list, p: ["412345678", "sig", 1, -1] })).toString("base64url");
    expect(decodeCursor(list, before, ["string", "string", "number", "number"])).toEqual(["412345678", "sig", 1, -1]);
  });
});
