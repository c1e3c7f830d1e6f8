import { describe, expect, test } from "bun:test";
import { BusUnavailable, bySize, coalescingSender } from "./bus";

const m = (key: string, bytes: number) => ({ key, value: "x".repeat(bytes - key.length) });

describe("bySize: sends a broker takes", () => {
  test("runs in order, each at most the bound; a message larger than the bound goes alone", () => {
    const messages = [m("a", 400), m("b", 400), m("c", 300), m("d", 1500), m("e", 100), m("f", 900)];
    const chunks = bySize(messages, 1000);
    expect(chunks.map((c) => c.map((x) => x.key).join(""))).toEqual(["ab", "c", "d", "ef"]);
    expect(chunks.flat()).toEqual(messages);
  });

  test("bytes, not characters: multi-byte text counts for what it weighs", () => {
    const heavy = { key: "k", value: "é".repeat(300) }; // 601 bytes
    expect(bySize([heavy, heavy], 1000)).toHaveLength(2);
    expect(bySize([], 1000)).toEqual([]);
  });
});

describe("coalescingSender: publishes that arrive during a send go out together", () => {
  const msg = (key: string) => ({ key, value: "v".repeat(99) }); // 100 bytes

  test("one send per group, in arrival order, each caller resolved once its messages are acknowledged", async () => {
    const sends: string[][] = [];
    let release!: () => void;
    const send = coalescingSender(
      async (messages) => {
        sends.push(messages.map((m) => m.key));
        if (sends.length === 1) await new Promise<void>((r) => (release = r));
      },
      1000,
      5000,
    );
    const first = send([msg("a")]);
    const later = [send([msg("b"), msg("c")]), send([msg("d")]), send([msg("e")])];
    await Bun.sleep(5);
    expect(sends).toEqual([["a"]]); // the others wait for the send under way
    release();
    await Promise.all([first, ...later]);
    expect(sends).toEqual([["a"], ["b", "c", "d", "e"]]);
  });

  test("a group larger than the bound goes in runs; a failed run fails the group's callers not yet acknowledged, and the next group is sent", async () => {
    const sends: string[][] = [];
    let fail = true;
    let release!: () => void;
    const send = coalescingSender(
      async (messages) => {
        sends.push(messages.map((m) => m.key));
        if (sends.length === 1) await new Promise<void>((r) => (release = r));
        if (sends.length === 3 && fail) throw new Error("broker down");
      },
      250,
      5000,
    );
    const first = send([msg("a")]);
    const group = [send([msg("b"), msg("c")]), send([msg("d"), msg("e")]), send([msg("f")])];
    const outcomes = Promise.allSettled(group);
    release();
    await first;
    // runs of the group: [b c] acknowledged (its caller succeeds), [d e] refused: the callers not yet
    // acknowledged fail, and [f] is not sent
    expect((await outcomes).map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    expect(sends).toEqual([["a"], ["b", "c"], ["d", "e"]]);
    fail = false;
    await send([msg("g")]);
    expect(sends.at(-1)).toEqual(["g"]);
  });

  test("a caller not acknowledged in time fails with KafkaUnavailable", async () => {
    const send = coalescingSender(() => new Promise(() => {}), 1000, 20);
    expect(send([msg("a")])).rejects.toBeInstanceOf(BusUnavailable);
  });
});
