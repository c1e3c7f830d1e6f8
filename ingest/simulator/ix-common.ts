/**
 * Shared pieces of the instruction builders (ix-dbc.ts, ix-damm.ts). Builders only
 * encode: every amount is decided, and state updated, by the caller.
 */
import BN from "bn.js";
import type { ProgramCodec, SimInstruction, SimOuterInstruction } from "./encode";
import { bn } from "./dbc";
import type { PoolSim } from "./world";

export type Codecs = { dbc: ProgramCodec; damm: ProgramCodec };

export const B = (v: bigint | number): BN => (typeof v === "number" ? new BN(v) : bn(v));
export const U64_MAX = B((1n << 64n) - 1n);
export const outer = (ix: SimInstruction, inner: SimInstruction[] = []): SimOuterInstruction => ({ ...ix, innerInstructions: inner });

/** Token programs by every name the two IDLs use for them (unused names are ignored). */
export function programs(p: PoolSim): Record<string, string> {
  const c = p.config;
  return { token_base_program: c.baseTokenProgram, token_quote_program: c.quoteTokenProgram, token_a_program: c.baseTokenProgram, token_b_program: c.quoteTokenProgram };
}
