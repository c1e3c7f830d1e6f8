import { describe, expect, test } from "bun:test";
import { orderedCommits } from "./consumer";

type Offset = { topic: string; partition: number; offset: string };

function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => {});
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function setup(commitFails?: (p: Offset) => boolean) {
  const committed: Offset[] = [];
  const sought: Offset[] = [];
  const commits = orderedCommits({
    seek: (p) => void sought.push(p),
    commit: async (p) => {
      if (commitFails?.(p)) throw new Error(`commit of ${p.offset} refused`);
      committed.push(p);
    },
  });
  return { commits, committed, sought };
}

describe("orderedCommits (the consumer's pipelined offsets)", () => {
  test("a partition's offsets are committed in order, each only after its batch is stored", async () => {
    const { commits, committed } = setup();
    const a = deferred();
    const b = deferred();
    const c = deferred();
    commits.add("t", 0, "0", "9", a.promise);
    commits.add("t", 0, "10", "19", b.promise);
    commits.add("t", 1, "0", "4", c.promise);
    b.resolve(); // the later batch of partition 0 is stored first
    c.resolve();
    await tick();
    expect(committed).toEqual([{ topic: "t", partition: 1, offset: "5" }]);
    a.resolve();
    await commits.settled();
    expect(committed.filter((p) => p.partition === 0).map((p) => p.offset)).toEqual(["10", "20"]);
  });

  test("the previous link is what the next batch waits for", async () => {
    const { commits } = setup();
    const a = deferred();
    const first = commits.add("t", 0, "0", "9", a.promise);
    const second = commits.add("t", 0, "10", "19", Promise.resolve());
    let waited = false;
    void second.previous.then(() => (waited = true));
    await tick();
    expect(waited).toBe(false);
    a.resolve();
    await first.done;
    await tick();
    expect(waited).toBe(true);
  });

  test("a failed write seeks its partition back to its first offset; later batches of it are not committed; the failure is thrown once", async () => {
    const { commits, committed, sought } = setup();
    const a = deferred();
    const b = deferred();
    commits.add("t", 0, "0", "9", Promise.resolve());
    commits.add("t", 0, "10", "19", a.promise);
    commits.add("t", 0, "20", "29", b.promise);
    const other = commits.add("t", 1, "0", "4", Promise.resolve());
    b.resolve(); // stored, but after a batch that fails: never committed
    a.reject(new Error("sink write failed"));
    await commits.settled();
    await other.done;
    expect(committed).toEqual([
      { topic: "t", partition: 0, offset: "10" },
      { topic: "t", partition: 1, offset: "5" },
    ]);
    expect(sought).toEqual([{ topic: "t", partition: 0, offset: "10" }]);
    expect(() => commits.throwIfFailed()).toThrow("sink write failed");
    expect(() => commits.throwIfFailed()).not.toThrow();

    // delivered again from the sought offset: committed as usual
    commits.add("t", 0, "10", "29", Promise.resolve());
    await commits.settled();
    expect(committed.at(-1)).toEqual({ topic: "t", partition: 0, offset: "30" });
    expect(sought).toHaveLength(1);
  });

  test("a refused commit seeks back the same way", async () => {
    const { commits, committed, sought } = setup((p) => p.offset === "10");
    commits.add("t", 2, "0", "9", Promise.resolve());
    commits.add("t", 2, "10", "19", Promise.resolve());
    await commits.settled();
    expect(committed).toEqual([]);
    expect(sought).toEqual([{ topic: "t", partition: 2, offset: "0" }]);
    expect(() => commits.throwIfFailed()).toThrow("commit of 10 refused");
  });
});
