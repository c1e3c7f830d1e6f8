/**
 * decodeTransaction: walks every instruction in execution order (each outer instruction,
 * then its inner list), remembers per program the last non-event instruction (the parent
 * of the events that follow it) and hands each known event or instruction to its decoder;
 * then one `token_balance` fact per token account the transaction moved (token-balances.ts).
 * With a scope (contract/fact-scope.ts), only the balance and SOL facts the pipelines can use.
 */
import type { DecodedTransaction } from "../contract/facts";
import { coinsNamedBy, keepsTokenBalance, type FactScope } from "../contract/fact-scope";
import type { ChainTransaction, Instruction, OuterInstruction } from "../transaction";
import { discriminatorHex, isEventCpi } from "./event-cpi";
import { eventDiscriminatorOfText } from "./event-text";
import { base58Text } from "../base58-instruction";
import { DAMM_V2, DBC, type IxInfo, type ProgramCoder } from "./program-coder";
import { errorMessage, type EventDecoder, type InstructionDecoder, type Parent, type Site, type TxState } from "./site";
import { burnFromInstruction } from "./spl-burn";
import { solTransferFromInstruction } from "./system-transfer";
import { feePayerBalance } from "./fee-payer-balance";
import { withoutNul } from "./chain-text";
import { poolCreatedDecoders } from "./dbc-pool-created";
import { dbcSwapDecoders, settleLegacySwaps } from "./dbc-swap";
import { curveCompleteDecoders } from "./dbc-curve-complete";
import { migrationDecoder } from "./dbc-migration";
import { dbcFeeClaimDecoders } from "./dbc-fee-claims";
import { surplusDecoders } from "./dbc-surplus";
import { dammSwapDecoders } from "./damm-v2-swap";
import { dammFeeClaimDecoders } from "./damm-v2-fee-claim";
import { tokenBalanceFacts } from "./token-balances";

const EVENT_DECODERS: EventDecoder[] = [
  ...poolCreatedDecoders,
  ...dbcSwapDecoders,
  ...curveCompleteDecoders,
  ...dbcFeeClaimDecoders,
  ...surplusDecoders,
  ...dammSwapDecoders,
  ...dammFeeClaimDecoders,
];
const INSTRUCTION_DECODERS: InstructionDecoder[] = [migrationDecoder];
/** Programs without an IDL: each gives a fact, an error message for malformed data, or null when the instruction is not its. */
const PLAIN_DECODERS = [burnFromInstruction, solTransferFromInstruction];

type Program = {
  slot: number;
  coder: ProgramCoder;
  events: Map<string, EventDecoder>;
  /** discriminator -> name of the events whose decoders defer reading their data: told from their base58 text */
  deferred: Map<string, string>;
  instructions: Map<string, InstructionDecoder>;
};

const PROGRAMS = new Map<string, Program>();
for (const coder of [DBC, DAMM_V2]) {
  PROGRAMS.set(coder.programId, { slot: PROGRAMS.size, coder, events: new Map(), deferred: new Map(), instructions: new Map() });
}
for (const d of EVENT_DECODERS) PROGRAMS.get(d.program.programId)!.events.set(d.event, d);
for (const program of PROGRAMS.values())
  for (const [disc, name] of program.coder.eventByDiscriminator) if (program.events.get(name)?.defers) program.deferred.set(disc, name);
for (const d of INSTRUCTION_DECODERS) PROGRAMS.get(d.program.programId)!.instructions.set(d.instruction, d);

class Walker {
  readonly parents: (Parent | null)[] = new Array(PROGRAMS.size).fill(null);
  readonly state: TxState = { sawDbcSwap2: false, legacySwaps: [] };
  ix = 0;
  outer!: OuterInstruction;

  constructor(
    readonly tx: ChainTransaction,
    readonly out: DecodedTransaction,
  ) {}

  site(inner: number, parent: Parent | null): Site {
    const { tx, outer, ix, out, state } = this;
    return { tx, outer, ix, inner, parent, out, state };
  }

  visit(ins: Instruction, inner: number): void {
    const program = PROGRAMS.get(ins.programId);
    if (program === undefined) {
      for (const decode of PLAIN_DECODERS) {
        const r = decode(ins, this.tx, this.ix, inner);
        if (r === null) continue;
        if (typeof r === "string") this.out.errors.push({ ix: this.ix, inner, message: r });
        else this.out.facts.push(r);
        return;
      }
      return;
    }
    // an event-CPI needs the program's own signature, so it is never an outer instruction
    if (inner >= 0) {
      // an event whose decoder defers reading it is told from its base58 text: decoded only if read
      const text = program.deferred.size ? base58Text(ins) : null;
      const deferred = text === null ? null : eventDiscriminatorOfText(program.deferred, text);
      if (deferred !== null) return this.event(program, ins, inner, deferred);
      if (isEventCpi(ins.data)) return this.event(program, ins, inner, discriminatorHex(ins.data, 8));
    }
    this.instruction(program, ins, inner);
  }

  event(program: Program, ins: Instruction, inner: number, disc: string): void {
    const name = program.coder.eventByDiscriminator.get(disc);
    if (name === undefined) {
      this.out.unknown.push({ program: program.coder.programId, discriminator: disc, ix: this.ix, inner });
      return;
    }
    const decoder = program.events.get(name);
    if (decoder === undefined) return;
    try {
      decoder.decode(ins, this.site(inner, this.parents[program.slot]!));
    } catch (e) {
      this.out.errors.push({ ix: this.ix, inner, message: `${name}: ${errorMessage(e)}` });
    }
  }

  instruction(program: Program, ins: Instruction, inner: number): void {
    const disc = discriminatorHex(ins.data, 0);
    let info: IxInfo | undefined = program.coder.ixByDiscriminator.get(disc);
    if (info === undefined) {
      this.out.unknown.push({ program: program.coder.programId, discriminator: disc, ix: this.ix, inner });
      // still the parent of what follows, so events are not pinned on an older instruction
      info = { name: `unknown(${disc})`, accountIndex: new Map() };
    }
    const parent: Parent = { info, instruction: ins };
    this.parents[program.slot] = parent;
    const decoder = program.instructions.get(info.name);
    if (decoder === undefined) return;
    try {
      decoder.decode(this.site(inner, parent));
    } catch (e) {
      this.out.errors.push({ ix: this.ix, inner, message: `${info.name}: ${errorMessage(e)}` });
    }
  }

  run(): void {
    const list = this.tx.instructions;
    for (let i = 0; i < list.length; i++) {
      const outer = list[i]!;
      this.ix = i;
      this.outer = outer;
      // events belong to the outer instruction they were emitted under
      this.parents.fill(null);
      this.visit(outer, -1);
      for (let j = 0; j < outer.inner.length; j++) this.visit(outer.inner[j]!, j);
    }
    settleLegacySwaps(this.out, this.state);
  }
}

/**
 * Facts, unknown discriminators and decoding errors of one transaction. Never throws.
 * `scope`: keep only the balance facts it says the pipelines can use (every one without it).
 */
export function decodeTransaction(tx: ChainTransaction, scope?: FactScope): DecodedTransaction {
  const out: DecodedTransaction = {
    tx: { signature: tx.signature, slot: tx.slot, blockTime: tx.blockTime, feePayer: tx.feePayer, failed: tx.failed },
    facts: [],
    unknown: [],
    errors: [],
  };
  if (tx.failed) return out;
  const walker = new Walker(tx, out);
  try {
    walker.run();
  } catch (e) {
    // decoders report through `errors`; this only guards the batch against a bug here
    out.errors.push({ ix: walker.ix, inner: -1, message: `decoder bug: ${errorMessage(e)}` });
  }
  // balances move only when the transaction succeeds, so they come after the failed check
  if (scope) {
    const txCoins = coinsNamedBy(out.facts, scope);
    out.facts = out.facts.filter((f) => f.kind !== "sol_transfer" || scope.treasury.has(f.from));
    for (const f of tokenBalanceFacts(tx, (b) => keepsTokenBalance(scope, b.mint, b.owner, txCoins))) out.facts.push(f);
  } else for (const f of tokenBalanceFacts(tx)) out.facts.push(f);
  const balance = !scope || scope.treasury.has(tx.feePayer) ? feePayerBalance(tx) : null;
  if (balance) out.facts.push(balance);
  for (const f of out.facts) withoutNul(f);
  return out;
}
