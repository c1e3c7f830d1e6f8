import { describe, expect, test } from "bun:test";
import { envelopeUndecodable, type TxEnvelope } from "../ingest/contract/envelope";
import { bisectFailures } from "./isolate";

const env = (signature: string) => envelopeUndecodable("helius", 0, "", "test", signature);
const sigs = (es: TxEnvelope[]) => es.map((e) => e.signature);

describe("bisectFailures", () => {
  test("writes everything but the transactions that fail alone, and names those", async () => {
    const group = ["a", "b", "c", "d", "e", "f", "g"].map(env);
    const writes: string[][] = [];
    const out = await bisectFailures(group, new Error("group"), async (part) => {
      if (part.some((e) => e.signature === "c" || e.signature === "f")) throw new Error("bad " + sigs(part).join(""));
      writes.push(sigs(part));
      return part.length;
    });
    expect(out.failing.map((f) => [f.signature, (f.error as Error).message])).toEqual([["c", "bad c"], ["f", "bad f"]]);
    expect(writes.flat().sort()).toEqual(["a", "b", "d", "e", "g"]);
    expect(out.written.reduce((a, b) => a + b, 0)).toBe(5);
  });

  test("envelopes of one signature stay together; a group of one is failing with the group's error", async () => {
    const group = [env("a"), env("b"), env("a")];
    const parts: string[][] = [];
    const out = await bisectFailures(group, new Error("group"), async (part) => {
      parts.push(sigs(part));
      if (part.some((e) => e.signature === "a")) throw new Error("bad a");
      return part.length;
    });
    expect(parts).toEqual([["a", "a"], ["b"]]);
    expect(out.failing.map((f) => f.signature)).toEqual(["a"]);

    const alone = await bisectFailures([env("x")], new Error("group"), async () => 1);
    expect(alone.written).toEqual([]);
    expect(alone.failing.map((f) => [f.signature, (f.error as Error).message])).toEqual([["x", "group"]]);
  });

  test("when every part fails (an engine down) it gives up with the group's error after a few writes", async () => {
    let writes = 0;
    const group = Array.from({ length: 1000 }, (_, i) => env(`s${i}`));
    const search = bisectFailures(group, new Error("group: down"), async () => {
      writes++;
      throw new Error("down");
    });
    await expect(search).rejects.toThrow("group: down");
    expect(writes).toBeLessThanOrEqual(2 * 10 + 2);
  });
});
