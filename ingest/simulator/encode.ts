/**
 * Instruction and event-CPI encoding for the simulator, driven by the IDLs the Meteora
 * SDKs ship: data comes from Anchor's BorshCoder, account order from the IDL's account
 * list for each instruction. Nothing here copies a layout by hand except the SPL Token
 * and Compute Budget instructions, which have no Anchor IDL.
 */
import { BorshCoder, type Idl } from "@coral-xyz/anchor";
import { ComputeBudgetProgram, PublicKey, SystemProgram } from "@solana/web3.js";
import { NATIVE_MINT as SPL_NATIVE_MINT } from "@solana/spl-token";
import { TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID } from "../decoders/programs";
import { DynamicBondingCurveIdl } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { CpAmmIdl } from "@meteora-ag/cp-amm-sdk";
import { encodeBase58 } from "../decoders/base58";

/** One instruction as Helius enhanced webhooks carry it. */
export type SimInstruction = { programId: string; accounts: string[]; data: string };
export type SimOuterInstruction = SimInstruction & { innerInstructions: SimInstruction[] };

/** Anchor's event-CPI instruction tag: sha256("anchor:event")[..8], little-endian u64 0x1d9acb512ea545e4. */
export const EVENT_IX_TAG = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d]);

// Program ids from the libraries that own them, never typed by hand.
export const SYSTEM_PROGRAM_ID: string = SystemProgram.programId.toBase58();
export { TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID };
export const COMPUTE_BUDGET_PROGRAM_ID: string = ComputeBudgetProgram.programId.toBase58();
export const NATIVE_MINT: string = SPL_NATIVE_MINT.toBase58();
export const DEFAULT_PUBKEY = SYSTEM_PROGRAM_ID;

/** Accounts an instruction needs that the caller may leave out: the usual program ids. */
const DEFAULT_ACCOUNTS: Record<string, string> = {
  system_program: SYSTEM_PROGRAM_ID,
  token_program: TOKEN_PROGRAM_ID,
  token_base_program: TOKEN_PROGRAM_ID,
  token_quote_program: TOKEN_PROGRAM_ID,
  token_a_program: TOKEN_PROGRAM_ID,
  token_b_program: TOKEN_PROGRAM_ID,
  token_2022_program: TOKEN_2022_PROGRAM_ID,
};

type IxAccount = { name: string; fixed?: string; optional: boolean };

/** An Anchor program: its coder, event authority, and per-instruction account order. */
export class ProgramCodec {
  readonly programId: string;
  readonly eventAuthority: string;
  readonly coder: BorshCoder;
  private readonly ixAccounts = new Map<string, IxAccount[]>();
  private readonly eventDisc = new Map<string, Uint8Array>();
  private readonly keys = new Map<string, PublicKey>();
  private readonly fixedCache = new Map<string, string>();

  constructor(idl: Idl) {
    this.programId = idl.address;
    this.coder = new BorshCoder(idl);
    const programKey = new PublicKey(idl.address);
    this.eventAuthority = PublicKey.findProgramAddressSync([Buffer.from("__event_authority")], programKey)[0].toBase58();
    for (const ix of idl.instructions) {
      this.ixAccounts.set(
        ix.name,
        ix.accounts.map((a) => {
          if ("accounts" in a) throw new Error(`nested account groups are not supported (${ix.name}.${a.name})`);
          return { name: a.name, fixed: a.address, optional: a.optional === true };
        }),
      );
    }
    for (const ev of idl.events ?? []) this.eventDisc.set(ev.name, Uint8Array.from(ev.discriminator));
  }

  /** A cached PublicKey, since Anchor's pubkey layout wants objects. */
  key(address: string): PublicKey {
    let k = this.keys.get(address);
    if (k === undefined) {
      k = new PublicKey(address);
      this.keys.set(address, k);
    }
    return k;
  }

  /**
   * The instruction's accounts in IDL order. Fixed addresses come from the IDL, `program`
   * and `event_authority` from the program; a missing optional account is the program
   * id (Anchor's convention for None); a missing required one is an error.
   */
  accounts(ixName: string, given: Record<string, string>): string[] {
    const list = this.ixAccounts.get(ixName);
    if (list === undefined) throw new Error(`unknown instruction ${ixName}`);
    const out = new Array<string>(list.length);
    for (let i = 0; i < list.length; i++) {
      const a = list[i]!;
      const v =
        given[a.name] ??
        a.fixed ??
        (a.name === "program" ? this.programId : undefined) ??
        (a.name === "event_authority" ? this.eventAuthority : undefined) ??
        DEFAULT_ACCOUNTS[a.name] ??
        (a.optional ? this.programId : undefined);
      if (v === undefined) throw new Error(`${ixName}: account ${a.name} not given`);
      out[i] = v;
    }
    return out;
  }

  /** The address the IDL fixes for one account of an instruction (a pool authority, a program id). */
  fixed(ixName: string, accountName: string): string {
    const key = `${ixName}.${accountName}`;
    let v = this.fixedCache.get(key);
    if (v === undefined) {
      v = this.ixAccounts.get(ixName)?.find((x) => x.name === accountName)?.fixed;
      if (v === undefined) throw new Error(`${key} has no fixed address in the IDL`);
      this.fixedCache.set(key, v);
    }
    return v;
  }

  /** An outer (or CPI) instruction of this program. */
  instruction(ixName: string, args: Record<string, unknown>, accounts: Record<string, string>): SimInstruction {
    const data = this.coder.instruction.encode(ixName, args);
    return { programId: this.programId, accounts: this.accounts(ixName, accounts), data: encodeBase58(data) };
  }

  /** The raw bytes of an event-CPI: tag, event discriminator, Borsh fields. */
  eventBytes(eventName: string, fields: Record<string, unknown>): Uint8Array {
    const disc = this.eventDisc.get(eventName);
    if (disc === undefined) throw new Error(`unknown event ${eventName}`);
    // The IDL names each event's field struct after the event itself.
    const body = this.coder.types.encode(eventName, fields);
    const out = new Uint8Array(16 + body.length);
    out.set(EVENT_IX_TAG, 0);
    out.set(disc, 8);
    out.set(body, 16);
    return out;
  }

  /** The inner instruction an `emit_cpi!` produces: the program calling itself with its event authority. */
  event(eventName: string, fields: Record<string, unknown>): SimInstruction {
    return { programId: this.programId, accounts: [this.eventAuthority], data: encodeBase58(this.eventBytes(eventName, fields)) };
  }
}

export const DBC_IDL = DynamicBondingCurveIdl as unknown as Idl;
export const DAMM_V2_IDL = CpAmmIdl as unknown as Idl;

/** Built once per simulator (PDA derivation and coder construction are not free). */
export function createCodecs(): { dbc: ProgramCodec; damm: ProgramCodec } {
  return { dbc: new ProgramCodec(DBC_IDL), damm: new ProgramCodec(DAMM_V2_IDL) };
}

// ---- SPL Token (no Anchor IDL): the instruction tags are part of the token program's ABI ----

function u64le(out: Uint8Array, offset: number, v: bigint): void {
  new DataView(out.buffer, out.byteOffset, out.byteLength).setBigUint64(offset, v, true);
}

/** Burn (tag 8): accounts [account, mint, owner], data [8, amount u64 LE]. */
export function tokenBurn(account: string, mint: string, owner: string, amount: bigint, programId = TOKEN_PROGRAM_ID): SimInstruction {
  const data = new Uint8Array(9);
  data[0] = 8;
  u64le(data, 1, amount);
  return { programId, accounts: [account, mint, owner], data: encodeBase58(data) };
}

/** TransferChecked (tag 12): accounts [source, mint, destination, authority], data [12, amount, decimals]. */
export function tokenTransferChecked(
  source: string,
  mint: string,
  destination: string,
  authority: string,
  amount: bigint,
  decimals: number,
  programId = TOKEN_PROGRAM_ID,
): SimInstruction {
  const data = new Uint8Array(10);
  data[0] = 12;
  u64le(data, 1, amount);
  data[9] = decimals;
  return { programId, accounts: [source, mint, destination, authority], data: encodeBase58(data) };
}

function budgetData(tag: number, value: bigint, bytes: number): string {
  const data = new Uint8Array(1 + bytes);
  data[0] = tag;
  for (let i = 0; i < bytes; i++) data[1 + i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return encodeBase58(data);
}
const CU_LIMIT = budgetData(2, 200_000n, 4);
const CU_PRICE = budgetData(3, 100_000n, 8);

/** SetComputeUnitLimit(200_000) and SetComputeUnitPrice(100_000 micro-lamports), as wallets prepend them. */
export function computeBudget(): SimOuterInstruction[] {
  return [
    { programId: COMPUTE_BUDGET_PROGRAM_ID, accounts: [], data: CU_LIMIT, innerInstructions: [] },
    { programId: COMPUTE_BUDGET_PROGRAM_ID, accounts: [], data: CU_PRICE, innerInstructions: [] },
  ];
}
