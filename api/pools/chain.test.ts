import { describe, expect, test } from "bun:test";
import { createPoolReader, PoolReadError, type AccountsAtSlot } from "./chain";
import { clockSysvar } from "../../infra/testing/rpc-double";
import { DBC_CONFIG_BYTES, DBC_POOL_BYTES } from "./testdata";

const target = { venue: "dbc" as const, pool: "Pool1111111111111111111111111111111111111111", config: "Conf1111111111111111111111111111111111111111" };

/** A chain read that answers the real fixtures at a slot, counts calls, and can be held open or made to fail. */
function fakeChain() {
  const state = { calls: 0, slot: 500, fail: false, gate: null as Promise<void> | null };
  const read: AccountsAtSlot = async (addresses) => {
    state.calls++;
    if (state.gate) await state.gate;
    if (state.fail) throw new Error("rpc down");
    return { slot: state.slot, accounts: [DBC_POOL_BYTES, DBC_CONFIG_BYTES, clockSysvar(state.slot, 1_750_000_000).data].slice(-addresses.length) };
  };
  return { state, read };
}

describe("pool reader", () => {
  test("keeps a read for 2 s (clock injected): the same snapshot before, a new read at 2 s", async () => {
    let now = 10_000;
    const chain = fakeChain();
    const reader = createPoolReader({ read: chain.read, now: () => now });
    const first = await reader.get(target);
    expect(first.slot).toBe(500);
    expect(first.unixTimestamp).toBe(1_750_000_000);
    expect(reader.ttlSeconds).toBe(2);
    expect(reader.ageSeconds(first)).toBe(0);
    now += 1999;
    chain.state.slot = 501;
    expect((await reader.get(target)).slot).toBe(500);
    expect(reader.ageSeconds(first)).toBe(1);
    expect(chain.state.calls).toBe(1);
    now += 1;
    expect((await reader.get(target)).slot).toBe(501);
    expect(chain.state.calls).toBe(2);
  });

  test("concurrent readers of one pool share one read (single-flight)", async () => {
    const chain = fakeChain();
    let open!: () => void;
    chain.state.gate = new Promise<void>((r) => (open = r));
    const reader = createPoolReader({ read: chain.read, now: () => 0 });
    const all = Promise.all(Array.from({ length: 25 }, () => reader.get(target)));
    open();
    const snapshots = await all;
    expect(chain.state.calls).toBe(1);
    expect(new Set(snapshots).size).toBe(1);
  });

  test("a failed read is not kept: the next reader reads again; a missing account is a PoolReadError", async () => {
    const chain = fakeChain();
    const reader = createPoolReader({ read: chain.read, now: () => 0 });
    chain.state.fail = true;
    await expect(reader.get(target)).rejects.toThrow("rpc down");
    chain.state.fail = false;
    expect((await reader.get(target)).venue).toBe("dbc");
    expect(chain.state.calls).toBe(2);
    const empty = createPoolReader({ read: async () => ({ slot: 1, accounts: [null, null, null] }) });
    await expect(empty.get(target)).rejects.toBeInstanceOf(PoolReadError);
  });
});
