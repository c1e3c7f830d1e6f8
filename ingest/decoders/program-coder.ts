/**
 * Per-program lookup tables built once from an Anchor IDL: discriminator -> event name,
 * discriminator -> instruction (name + account positions by IDL account name). Events are
 * decoded by the IDL-built readers of borsh-reader.ts (plain values, Anchor as the fallback
 * for malformed data); instructions and accounts by Anchor's BorshCoder.
 */
import { BorshCoder, type Idl } from "@coral-xyz/anchor";
import { buildTypeDecoder, type TypeDecoder } from "./borsh-reader";
import { bytesToHex } from "./event-cpi";
import { DAMM_V2_IDL, DBC_IDL } from "./programs";

export type IxInfo = {
  name: string;
  /** IDL account name -> position in the instruction's account list */
  accountIndex: Map<string, number>;
};

export type ProgramCoder = {
  programId: string;
  coder: BorshCoder;
  /** IDL types (events among them) as plain values: bigint, base58 strings, numbers */
  types: TypeDecoder;
  eventByDiscriminator: Map<string, string>;
  ixByDiscriminator: Map<string, IxInfo>;
  ixByName: Map<string, IxInfo>;
};

type IdlAccountItem = { name: string; accounts?: IdlAccountItem[] };

/** Composite account groups expand in place, as Anchor serializes them. */
function flattenAccounts(items: IdlAccountItem[], out: string[] = []): string[] {
  for (const item of items) {
    if (item.accounts) flattenAccounts(item.accounts, out);
    else out.push(item.name);
  }
  return out;
}

export function buildProgramCoder(idl: Idl): ProgramCoder {
  const eventByDiscriminator = new Map<string, string>();
  for (const ev of idl.events ?? []) eventByDiscriminator.set(bytesToHex(ev.discriminator), ev.name);
  const ixByDiscriminator = new Map<string, IxInfo>();
  const ixByName = new Map<string, IxInfo>();
  for (const ix of idl.instructions) {
    const names = flattenAccounts(ix.accounts as IdlAccountItem[]);
    const info: IxInfo = { name: ix.name, accountIndex: new Map(names.map((n, i) => [n, i])) };
    ixByDiscriminator.set(bytesToHex(ix.discriminator), info);
    ixByName.set(ix.name, info);
  }
  const coder = new BorshCoder(idl);
  const types = buildTypeDecoder(idl, coder);
  return { programId: idl.address, coder, types, eventByDiscriminator, ixByDiscriminator, ixByName };
}

export const DBC = buildProgramCoder(DBC_IDL);
export const DAMM_V2 = buildProgramCoder(DAMM_V2_IDL);

/** Anchor's layouts read through Buffer methods; this views the same memory without copying. */
export function asBuffer(data: Uint8Array, offset = 0): Buffer {
  return Buffer.from(data.buffer, data.byteOffset + offset, data.byteLength - offset);
}

/**
 * Decodes an event body (the bytes after tag and discriminator) into plain values (u64 as
 * bigint, pubkeys as base58; see borsh-reader.ts); throws on malformed data.
 */
export function decodeEventBody(program: ProgramCoder, eventName: string, data: Uint8Array): any {
  return program.types.decode(eventName, data, 16);
}
