/**
 * What a fact decoder gets: where the event (or instruction) sits in the transaction and
 * the instruction that emitted it. Decoders throw DecodeError for anything inconsistent;
 * the dispatcher records it in `errors` and carries on with the rest of the transaction.
 */
import type { DecodedTransaction, FactKey } from "../contract/facts";
import type { ChainTransaction, Instruction, OuterInstruction } from "../transaction";
import { decodeEventBody, type IxInfo, type ProgramCoder } from "./program-coder";

export class DecodeError extends Error {}

/** DecodeError says what is inconsistent; anything else came out of Borsh on bad bytes. */
export function errorMessage(e: unknown): string {
  return e instanceof DecodeError ? e.message : `malformed: ${e instanceof Error ? e.message : String(e)}`;
}

/** The nearest preceding non-event instruction of the emitting program, resolved by the IDL. */
export type Parent = { info: IxInfo; instruction: Instruction };

/** Per-transaction state shared by decoders (dedup across events of one transaction). */
export type TxState = {
  /** the transaction has a DBC EvtSwap2 (or its transfer-hook twin) */
  sawDbcSwap2: boolean;
  /** legacy DBC EvtSwap events, decoded at the end only when there was no EvtSwap2 */
  legacySwaps: { ins: Instruction; site: Site }[];
};

export type Site = {
  tx: ChainTransaction;
  outer: OuterInstruction;
  /** outer instruction index */
  ix: number;
  /** position in outer.inner of the event-CPI or instruction; -1 = the outer instruction */
  inner: number;
  parent: Parent | null;
  out: DecodedTransaction;
  state: TxState;
};

export type EventDecoder = {
  program: ProgramCoder;
  event: string;
  /** `ins.data` is the whole event-CPI instruction data (decoded from base58 when first read) */
  decode(ins: Instruction, site: Site): void;
  /**
   * The decoder keeps the instruction and reads its data later, if at all (the legacy DBC EvtSwap):
   * the walker tells this event from its base58 text (event-text.ts), so its data is decoded only
   * when read. Other events' data is decoded to find their discriminator (their decoders read it anyway).
   */
  defers?: boolean;
};

/**
 * A decoder that wants the decoded event: IDL field names, u64/u128 as bigint, pubkeys as
 * base58 strings, small integers as numbers (see borsh-reader.ts).
 */
export function eventDecoder(program: ProgramCoder, event: string, fn: (ev: any, site: Site) => void): EventDecoder {
  return { program, event, decode: (ins, site) => fn(decodeEventBody(program, event, ins.data), site) };
}

export type InstructionDecoder = {
  program: ProgramCoder;
  instruction: string;
  decode(site: Site): void;
};

/** The key of a fact of `tx` at (ix, inner): instruction facts and the per-transaction ones (balances) alike. */
export function txFactKey(tx: Pick<ChainTransaction, "signature" | "slot" | "blockTime">, ix: number, inner: number): FactKey {
  return { signature: tx.signature, ix, inner, slot: tx.slot, blockTime: tx.blockTime };
}

export function factKey(site: Site): FactKey {
  return txFactKey(site.tx, site.ix, site.inner);
}

/** The emitting instruction, which must be one of `names` when given. */
export function requireParent(site: Site, names?: readonly string[]): Parent {
  const p = site.parent;
  if (p === null) throw new DecodeError("no emitting instruction found");
  if (names && !names.includes(p.info.name)) throw new DecodeError(`emitted by unexpected instruction ${p.info.name}`);
  return p;
}

/** An account of an instruction by its IDL name. */
export function account(p: Parent, name: string): string {
  const i = p.info.accountIndex.get(name);
  const a = i === undefined ? undefined : p.instruction.accounts[i];
  if (a === undefined) throw new DecodeError(`${p.info.name}: account ${name} missing`);
  return a;
}

/** Guards against pairing an event with the wrong instruction. */
export function requireSame(what: string, fromEvent: string, fromInstruction: string): void {
  if (fromEvent !== fromInstruction)
    throw new DecodeError(`${what}: event says ${fromEvent}, instruction says ${fromInstruction}`);
}
