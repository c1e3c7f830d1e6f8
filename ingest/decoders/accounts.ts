/**
 * DBC account data (getAccountInfo bytes) decoded by Anchor from the SDK IDL. The result is
 * Anchor's object as is: u64/u128 as BN, pubkeys as PublicKey, field names as in the IDL.
 * Decoding checks the 8-byte account discriminator and throws on a mismatch or short data.
 */
import { asBuffer, DBC } from "./program-coder";

export function decodePoolConfig(bytes: Uint8Array): any {
  return DBC.coder.accounts.decode("PoolConfig", asBuffer(bytes));
}

export function decodeVirtualPool(bytes: Uint8Array): any {
  return DBC.coder.accounts.decode("VirtualPool", asBuffer(bytes));
}
