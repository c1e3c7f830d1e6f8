/**
 * Instructions as normalize.ts builds them from webhook and RPC payloads: the data stays the
 * base58 text it came as until something reads `data`, then it is decoded once. Most of a
 * transaction's data is never read (compute budget, associated token account, other programs'
 * instructions, the legacy DBC EvtSwap beside an EvtSwap2), and base58 decoding grows with the
 * square of the length: an event of 200-300 characters costs microseconds. The decoders tell an
 * event-CPI's discriminator from the text itself (decoders/event-text.ts).
 *
 * The text is checked when the instruction is built (normalize fails on a character outside the
 * alphabet, as it did when it decoded everything), so reading `data` never fails. Setting `data`
 * (tests patch events) drops the text: what the decoders see is then the bytes set.
 */
import { decodeBase58 } from "./decoders/base58";
import type { Instruction, OuterInstruction } from "./transaction";

export class Base58Instruction implements Instruction {
  #bytes: Uint8Array | null = null;

  constructor(
    public programId: string,
    public accounts: string[],
    /** the data as base58 text (checked), until `data` is set; null after */
    public base58: string | null,
  ) {}

  get data(): Uint8Array {
    if (this.#bytes === null) this.#bytes = decodeBase58(this.base58!)!;
    return this.#bytes;
  }

  set data(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.base58 = null;
  }
}

export class Base58OuterInstruction extends Base58Instruction implements OuterInstruction {
  constructor(
    programId: string,
    accounts: string[],
    base58: string,
    public inner: Instruction[],
  ) {
    super(programId, accounts, base58);
  }
}

/** The instruction's data as base58 text when it came as such and was not replaced since, else null. */
export function base58Text(ins: Instruction): string | null {
  return ins instanceof Base58Instruction ? ins.base58 : null;
}
