import { expect, test } from "bun:test";
import type { Burn } from "../contract/facts";
import type { Instruction } from "../transaction";
import { decodeTransaction } from "./index";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./programs";
import { addr, FIXTURE_NAMES, fixtureTx, syntheticTx } from "./testing";

function burnData(tag: 8 | 15, amount: bigint, decimals = 6): Uint8Array {
  const data = new Uint8Array(tag === 8 ? 9 : 10);
  data[0] = tag;
  new DataView(data.buffer).setBigUint64(1, amount, true);
  if (tag === 15) data[9] = decimals;
  return data;
}

const ACCOUNT = addr(10);
const MINT = addr(11);
const AUTHORITY = addr(12);
const KEY = { signature: "synthetic-signature", slot: 1000, blockTime: 1700000000 };

function burnIx(programId: string, tag: 8 | 15, amount: bigint, accounts = [ACCOUNT, MINT, AUTHORITY]): Instruction {
  return { programId, accounts, data: burnData(tag, amount) };
}

test("Burn and BurnChecked of both token programs, outer and inner", () => {
  const other = { programId: addr(40), accounts: [], data: new Uint8Array([3]) };
  const tx = syntheticTx([
    { ...burnIx(TOKEN_PROGRAM_ID, 8, 1_000_000n), inner: [] },
    { ...other, inner: [other, burnIx(TOKEN_2022_PROGRAM_ID, 15, 18_446_744_073_709_551_615n)] },
    {
      ...other,
      inner: [
        burnIx(TOKEN_PROGRAM_ID, 15, 5n),
        burnIx(TOKEN_2022_PROGRAM_ID, 8, 0n, [ACCOUNT, MINT, AUTHORITY, addr(13)]),
      ],
    },
  ]);
  const burn = (ix: number, inner: number, amount: bigint, program: Burn["program"]): Burn => ({
    ...KEY,
    ix,
    inner,
    kind: "burn",
    mint: MINT,
    account: ACCOUNT,
    authority: AUTHORITY,
    amount,
    program,
  });
  const d = decodeTransaction(tx);
  expect(d.facts).toEqual([
    burn(0, -1, 1_000_000n, "spl-token"),
    burn(1, 1, 18_446_744_073_709_551_615n, "token-2022"),
    burn(2, 0, 5n, "spl-token"),
    burn(2, 1, 0n, "token-2022"),
  ]);
  expect(d.errors).toEqual([]);
  expect(d.unknown).toEqual([]);
});

test("malformed burns are errors; other token instructions and programs are ignored", () => {
  const tx = syntheticTx([
    {
      programId: TOKEN_PROGRAM_ID,
      accounts: [ACCOUNT, MINT, AUTHORITY],
      data: burnData(8, 1n).subarray(0, 5),
      inner: [],
    },
    { ...burnIx(TOKEN_2022_PROGRAM_ID, 15, 1n, [ACCOUNT, MINT]), inner: [] },
    { programId: TOKEN_PROGRAM_ID, accounts: [ACCOUNT], data: Uint8Array.of(9), inner: [] }, // CloseAccount
    { programId: TOKEN_PROGRAM_ID, accounts: [], data: new Uint8Array(0), inner: [] },
    { ...burnIx(addr(41), 8, 1n), inner: [] }, // same bytes, another program
  ]);
  const d = decodeTransaction(tx);
  expect(d.facts).toEqual([]);
  expect(d.errors).toEqual([
    { ix: 0, inner: -1, message: "spl-token burn: data is 5 bytes, expected 9" },
    { ix: 1, inner: -1, message: "token-2022 burn: 2 accounts, expected at least 3" },
  ]);
});

test("no fixture contains a burn", async () => {
  for (const name of FIXTURE_NAMES) {
    expect(decodeTransaction(await fixtureTx(name)).facts.filter((f) => f.kind === "burn")).toEqual([]);
  }
});
