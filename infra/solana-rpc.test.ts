import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { tokenAccountsAnswer } from "./solana-rpc";

const OWNER = "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf";
const ACCOUNT = "FPmrDfUyNsNN7JtXtyvRERgVLRmys7pN1eETSx57EB4S";
/** owner (32 bytes) then amount (u64 LE), as the dataSlice {offset 32, length 40} returns them */
const slice = (amount: bigint, length = 40) => {
  const b = new Uint8Array(40);
  b.set(bs58.decode(OWNER), 0);
  new DataView(b.buffer).setBigUint64(32, amount, true);
  return Buffer.from(b.subarray(0, length)).toString("base64");
};
const entry = (data: unknown, pubkey: unknown = ACCOUNT) => ({ pubkey, account: { lamports: 2039280, owner: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", executable: false, rentEpoch: 0, space: 165, data } });

describe("getProgramAccounts answers (owner and amount slices)", () => {
  test("read with the context slot; the amount is a u64 beyond 2^53", () => {
    expect(tokenAccountsAnswer({ context: { slot: 77 }, value: [entry([slice(18_446_744_073_709_551_615n), "base64"])] })).toEqual({
      slot: 77,
      accounts: [{ account: ACCOUNT, owner: OWNER, amount: 18_446_744_073_709_551_615n }],
    });
  });

  test("anything malformed throws, naming it", () => {
    const bad: [unknown, RegExp][] = [
      [[], /no context slot/],
      [{ context: { slot: -1 }, value: [] }, /no context slot/],
      [{ context: { slot: 1 }, value: {} }, /not a list/],
      [{ context: { slot: 1 }, value: [entry([slice(1n), "base64"], "not an address!")] }, /entry 0 has no address/],
      [{ context: { slot: 1 }, value: [entry([slice(1n), "base58"])] }, /entry 0 .* has no base64 data/],
      [{ context: { slot: 1 }, value: [entry(slice(1n))] }, /entry 0 .* has no base64 data/],
      [{ context: { slot: 1 }, value: [entry([slice(1n, 39), "base64"])] }, /39 bytes of owner and amount, expected 40/],
    ];
    for (const [answer, message] of bad) expect(() => tokenAccountsAnswer(answer)).toThrow(message);
  });
});
