/**
 * System Program `transfer`: instruction index u32 LE 2, lamports u64 LE (12 bytes);
 * accounts [from, to]. Other System instructions (createAccount, transferWithSeed, ...)
 * are not SOL payments the platform follows and are ignored.
 */
import { SystemProgram } from "@solana/web3.js";
import type { SolTransfer } from "../contract/facts";
import type { ChainTransaction, Instruction } from "../transaction";
import { txFactKey } from "./site";

// from web3.js, never typed by hand
export const SYSTEM_PROGRAM_ID: string = SystemProgram.programId.toBase58();
const TRANSFER = 2;

/** A SolTransfer fact, an error message for a malformed transfer, or null for anything else. */
export function solTransferFromInstruction(ins: Instruction, tx: ChainTransaction, ix: number, inner: number): SolTransfer | string | null {
  if (ins.programId !== SYSTEM_PROGRAM_ID) return null;
  const data = ins.data;
  if (data.length < 4) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  if (view.getUint32(0, true) !== TRANSFER) return null;
  if (data.length !== 12) return `system transfer: data is ${data.length} bytes, expected 12`;
  if (ins.accounts.length < 2) return `system transfer: ${ins.accounts.length} accounts, expected 2`;
  return {
    kind: "sol_transfer",
    ...txFactKey(tx, ix, inner),
    from: ins.accounts[0]!,
    to: ins.accounts[1]!,
    lamports: view.getBigUint64(4, true),
  };
}
