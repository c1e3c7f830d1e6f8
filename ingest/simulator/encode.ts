/**
 * Instruction and event-CPI encoding for the simulator, driven by the IDLs the Meteora
 * SDKs ship: data comes from Anchor's BorshCoder, account order from the IDL's account
 * list for each instruction. Nothing here copies a layout by hand except the SPL Token
 * and Compute Budget instructions, which have no Anchor IDL.
 */
import { BorshCoder, type Idl } from "@coral-xyz/anchor";
import { ComputeBudgetProgram, PublicKey, SystemProgram } from "@solana/web3.js";
import { ASSOCIATED_TOKEN_PROGRAM_ID as SPL_ASSOCIATED_TOKEN_PROGRAM_ID, NATIVE_MINT as SPL_NATIVE_MINT } from "@solana/spl-token";
import { TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID } from "../decoders/programs";
import { DynamicBondingCurveIdl } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { CpAmmIdl } from "@meteora-ag/cp-amm-sdk";
import { decodeBase58, encodeBase58 } from "../decoders/base58";

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

// ---- what wallets put around a swap: ATA creation, SOL wrapping, transfers (no Anchor IDL either) ----

export const ASSOCIATED_TOKEN_PROGRAM_ID: string = SPL_ASSOCIATED_TOKEN_PROGRAM_ID.toBase58();

const oneByte = (tag: number): string => encodeBase58(Uint8Array.of(tag));
const SYNC_NATIVE = oneByte(17);
const CLOSE_ACCOUNT = oneByte(9);
const IMMUTABLE_OWNER = oneByte(22);
const ATA_CREATE_IDEMPOTENT = oneByte(1);
// GetAccountDataSize (21) asking for the ImmutableOwner extension (7, u16 LE), as the ATA program does on Token-2022
const DATA_SIZE_SPL = oneByte(21);
const DATA_SIZE_2022 = encodeBase58(Uint8Array.of(21, 7, 0));

/** Token account sizes: 165 bytes, 170 on Token-2022 with ImmutableOwner (the ATA program adds it). */
export const tokenAccountSize = (programId: string): number => (programId === TOKEN_2022_PROGRAM_ID ? 170 : 165);

/** Rent-exempt minimum of an account of `space` bytes: (128 + space) * 3480 lamports/byte-year * 2 years. */
export const rentExempt = (space: number): number => (128 + space) * 6960;

/** System Program Transfer (tag 2, u32 LE): accounts [from, to], data [2,0,0,0, lamports u64 LE]. */
export function systemTransfer(from: string, to: string, lamports: bigint): SimInstruction {
  const data = new Uint8Array(12);
  data[0] = 2;
  u64le(data, 4, lamports);
  return { programId: SYSTEM_PROGRAM_ID, accounts: [from, to], data: encodeBase58(data) };
}

/** System Program CreateAccount (tag 0): [from, new], data [0,0,0,0, lamports, space, owner]. */
export function systemCreateAccount(from: string, account: string, lamports: number, space: number, owner: string): SimInstruction {
  const data = new Uint8Array(52);
  u64le(data, 4, BigInt(lamports));
  u64le(data, 12, BigInt(space));
  data.set(decodeBase58(owner)!, 20);
  return { programId: SYSTEM_PROGRAM_ID, accounts: [from, account], data: encodeBase58(data) };
}

/** SPL Token Transfer (tag 3): accounts [source, destination, owner], data [3, amount u64 LE]. */
export function tokenTransfer(source: string, destination: string, owner: string, amount: bigint, programId = TOKEN_PROGRAM_ID): SimInstruction {
  const data = new Uint8Array(9);
  data[0] = 3;
  u64le(data, 1, amount);
  return { programId, accounts: [source, destination, owner], data: encodeBase58(data) };
}

/** SyncNative (tag 17): the wrapped-SOL account's token amount follows its lamports. */
export const tokenSyncNative = (account: string, programId = TOKEN_PROGRAM_ID): SimInstruction => ({ programId, accounts: [account], data: SYNC_NATIVE });

/** CloseAccount (tag 9): accounts [account, destination, owner]; a wrapped-SOL account's lamports go to destination. */
export const tokenCloseAccount = (account: string, destination: string, owner: string, programId = TOKEN_PROGRAM_ID): SimInstruction => ({
  programId,
  accounts: [account, destination, owner],
  data: CLOSE_ACCOUNT,
});

/**
 * Associated Token Account CreateIdempotent (tag 1): accounts [payer, ata, owner, mint,
 * system, token program]. When the account does not exist yet, the CPIs the ATA program
 * makes (GetAccountDataSize, CreateAccount with the rent, InitializeImmutableOwner,
 * InitializeAccount3); none when it exists.
 */
export function createAta(payer: string, ata: string, owner: string, mint: string, tokenProgram: string, creates: boolean): SimOuterInstruction {
  const inner: SimInstruction[] = [];
  if (creates) {
    const space = tokenAccountSize(tokenProgram);
    inner.push(
      { programId: tokenProgram, accounts: [mint], data: tokenProgram === TOKEN_2022_PROGRAM_ID ? DATA_SIZE_2022 : DATA_SIZE_SPL },
      { programId: SYSTEM_PROGRAM_ID, accounts: [payer, ata], data: cached(`create:${tokenProgram}`, () => systemCreateAccount(payer, ata, rentExempt(space), space, tokenProgram).data) },
      { programId: tokenProgram, accounts: [ata], data: IMMUTABLE_OWNER },
      { programId: tokenProgram, accounts: [ata, mint], data: cached(`init3:${owner}`, () => initializeAccount3Data(owner)) },
    );
  }
  return { programId: ASSOCIATED_TOKEN_PROGRAM_ID, accounts: [payer, ata, owner, mint, SYSTEM_PROGRAM_ID, tokenProgram], data: ATA_CREATE_IDEMPOTENT, innerInstructions: inner };
}

/** InitializeAccount3 (tag 18): data [18, owner]. */
function initializeAccount3Data(owner: string): string {
  const init = new Uint8Array(33);
  init[0] = 18;
  init.set(decodeBase58(owner)!, 1);
  return encodeBase58(init);
}

// Encoded data that depends on few values (a token program, a wallet): base58 is the hot spot.
const encodedCache = new Map<string, string>();
function cached(key: string, make: () => string): string {
  let v = encodedCache.get(key);
  if (v === undefined) {
    if (encodedCache.size >= 100_000) encodedCache.clear();
    v = make();
    encodedCache.set(key, v);
  }
  return v;
}
