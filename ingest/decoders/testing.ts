/**
 * Test support: loading the repository's chain fixtures and building synthetic instructions with the
 * same Anchor coders (for facts no fixture contains). Not used by production code.
 */
import { PublicKey } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import type { ChainTransaction, Instruction, OuterInstruction } from "../transaction";
import type { Fact } from "../contract/facts";
import { normalizeWebhookTransaction } from "../normalize";
import { EVENT_IX_TAG } from "./event-cpi";
import type { ProgramCoder } from "./program-coder";

export { FIXTURES_URL as FIXTURES } from "../../infra/testing/fixtures";
import { FIXTURES_URL as FIXTURES } from "../../infra/testing/fixtures";

export async function readFixture(name: string): Promise<any> {
  return JSON.parse(await Bun.file(new URL(`helius-devnet/${name}`, FIXTURES)).text());
}

export async function fixtureTx(name: string): Promise<ChainTransaction> {
  const r = normalizeWebhookTransaction(await readFixture(name));
  if (!r.ok) throw new Error(`${name}: ${r.reason}`);
  return r.tx;
}

export const FIXTURE_NAMES = [
  "damm-v2-buy.enhanced.json",
  "damm-v2-sell.enhanced.json",
  "dbc-buy.enhanced.json",
  "dbc-create-pool.raw.json",
  "dbc-migrate-damm-v2.enhanced.json",
  "dbc-sell.enhanced.json",
] as const;

/** A deterministic, valid address for slot `n` of a synthetic instruction. */
export function addr(n: number): string {
  const bytes = new Uint8Array(32).fill(n & 0xff);
  bytes[0] = 7;
  return new PublicKey(bytes).toBase58();
}

export const key = (s: string) => new PublicKey(s);
export const bn = (v: bigint | number) => new BN(v.toString());

/** Instruction data for `name` with accounts placed by IDL name (others get filler addresses). */
export function anchorInstruction(
  program: ProgramCoder,
  name: string,
  args: Record<string, unknown>,
  accounts: Record<string, string>,
): Instruction {
  const info = program.ixByName.get(name);
  if (!info) throw new Error(`no instruction ${name}`);
  const list = new Array<string>(info.accountIndex.size);
  for (const [n, i] of info.accountIndex) list[i] = accounts[n] ?? addr(100 + i);
  return {
    programId: program.programId,
    accounts: list,
    data: new Uint8Array(program.coder.instruction.encode(name, args)),
  };
}

/** The event-CPI inner instruction a program emits for `event`. */
export function eventCpi(program: ProgramCoder, event: string, fields: Record<string, unknown>): Instruction {
  const disc = [...program.eventByDiscriminator].find(([, n]) => n === event)?.[0];
  if (!disc) throw new Error(`no event ${event}`);
  const body = program.coder.types.encode(event, fields);
  const data = new Uint8Array(16 + body.length);
  data.set(EVENT_IX_TAG, 0);
  data.set(Buffer.from(disc, "hex"), 8);
  data.set(body, 16);
  return { programId: program.programId, accounts: [addr(250)], data };
}

export function syntheticTx(instructions: OuterInstruction[]): ChainTransaction {
  return {
    signature: "synthetic-signature",
    slot: 1000,
    blockTime: 1700000000,
    feePayer: addr(1),
    failed: false,
    instructions,
    fee: 5000,
    tokenBalances: [],
    nativeBalances: [],
  };
}

/** Facts other than the balance and SOL-transfer facts most transactions carry: what a program's decoder test looks at. */
export function programFacts(d: { facts: Fact[] }): Fact[] {
  return d.facts.filter((f) => f.kind !== "sol_transfer" && f.kind !== "sol_balance" && f.kind !== "token_balance");
}

/**
 * Overwrites a little-endian u64 (or, with `bytes` 1, a u8) of an event-CPI's data at `offset`
 * from the start of the event body (after tag and discriminator): a fixture's event made into
 * a variation without re-encoding it. Returns the value it replaced.
 */
export function patchEventInt(data: Uint8Array, offset: number, value: bigint, bytes: 1 | 8 = 8): bigint {
  const view = new DataView(data.buffer, data.byteOffset + 16 + offset, bytes);
  const old = bytes === 8 ? view.getBigUint64(0, true) : BigInt(view.getUint8(0));
  if (bytes === 8) view.setBigUint64(0, value, true);
  else view.setUint8(0, Number(value));
  return old;
}
