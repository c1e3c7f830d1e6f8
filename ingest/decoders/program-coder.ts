/**
 * Per-program lookup tables built once from an Anchor IDL: discriminator -> event name,
 * discriminator -> instruction (name + account positions by IDL account name). Decoding
 * itself is Anchor's BorshCoder; these maps only replace its linear discriminator scans.
 */
import { BorshCoder, type Idl } from "@coral-xyz/anchor";
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
  return { programId: idl.address, coder: new BorshCoder(idl), eventByDiscriminator, ixByDiscriminator, ixByName };
}

export const DBC = buildProgramCoder(DBC_IDL);
export const DAMM_V2 = buildProgramCoder(DAMM_V2_IDL);

/** Anchor's layouts read through Buffer methods; this views the same memory without copying. */
export function asBuffer(data: Uint8Array, offset = 0): Buffer {
  return Buffer.from(data.buffer, data.byteOffset + offset, data.byteLength - offset);
}

/** Decodes an event body (the bytes after tag and discriminator); throws on malformed data. */
export function decodeEventBody(program: ProgramCoder, eventName: string, data: Uint8Array): any {
  return program.coder.types.decode(eventName, asBuffer(data, 16));
}
