/**
 * SPL Token and Token-2022 Burn / BurnChecked. Both programs share the instruction layout:
 * tag u8, amount u64 LE (BurnChecked adds decimals u8); accounts [account, mint, authority, ...signers].
 */
import type { Burn } from "../contract/facts";
import type { ChainTransaction, Instruction } from "../transaction";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./programs";
import { txFactKey } from "./site";

const BURN = 8;
const BURN_CHECKED = 15;

/** A Burn fact, an error message for a malformed burn, or null for anything else. */
export function burnFromInstruction(
  ins: Instruction,
  tx: ChainTransaction,
  ix: number,
  inner: number,
): Burn | string | null {
  const program =
    ins.programId === TOKEN_PROGRAM_ID ? "spl-token" : ins.programId === TOKEN_2022_PROGRAM_ID ? "token-2022" : null;
  if (program === null) return null;
  const data = ins.data;
  if (data.length === 0 || (data[0] !== BURN && data[0] !== BURN_CHECKED)) return null;
  const expected = data[0] === BURN ? 9 : 10;
  if (data.length !== expected) return `${program} burn: data is ${data.length} bytes, expected ${expected}`;
  if (ins.accounts.length < 3) return `${program} burn: ${ins.accounts.length} accounts, expected at least 3`;
  const amount = new DataView(data.buffer, data.byteOffset + 1, 8).getBigUint64(0, true);
  return {
    kind: "burn",
    ...txFactKey(tx, ix, inner),
    mint: ins.accounts[1]!,
    account: ins.accounts[0]!,
    authority: ins.accounts[2]!,
    amount,
    program,
  };
}
