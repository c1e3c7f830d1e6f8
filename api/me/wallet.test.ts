import { expect, test } from "bun:test";
import { createBalanceReader } from "./wallet";

const A = "9ZNTfG4NyQgxy2SWjSiQoUyBPEvXT2xo7fKc5hPYYJ7b";
const B = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T";

test("a balance is kept 5 s per address on the injected clock, then read again", async () => {
  let t = 1_000_000;
  const reads: string[] = [];
  let lamports = 10n;
  const r = createBalanceReader({ read: async (a) => (reads.push(a), lamports), now: () => t });
  expect(await r.get(A)).toEqual({ lamports: 10n, readAtMs: 1_000_000 });
  lamports = 20n;
  t += 4_999;
  expect((await r.get(A)).lamports).toBe(10n);
  expect((await r.get(B)).lamports).toBe(20n); // another address: its own read
  t += 1;
  expect(await r.get(A)).toEqual({ lamports: 20n, readAtMs: 1_005_000 });
  expect(reads).toEqual([A, B, A]);
});

test("readers of an address whose read is in flight share it; a failed read is not kept", async () => {
  let calls = 0;
  let release!: (v: bigint) => void;
  let fail = true;
  const r = createBalanceReader({
    read: (a) => {
      calls++;
      if (fail) return Promise.reject(new Error(`rpc down for ${a}`));
      return new Promise<bigint>((res) => (release = res));
    },
  });
  await expect(r.get(A)).rejects.toThrow("rpc down");
  fail = false;
  const both = Promise.all([r.get(A), r.get(A), r.get(A)]);
  release(7n);
  expect((await both).map((x) => x.lamports)).toEqual([7n, 7n, 7n]);
  expect(calls).toBe(2);
  expect((await r.get(A)).lamports).toBe(7n);
  expect(calls).toBe(2);
});
