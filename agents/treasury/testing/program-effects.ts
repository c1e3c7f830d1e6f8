/**
 * Tests: a TEST DOUBLE of what the Solana programs would do with the transactions the
 * loopback RPC test double lands (it runs no programs). For the instructions the treasury
 * actions send, it says the effects a real cluster would record in the confirmed
 * transaction (rpc-double-landing.ts), as the programs define them:
 *
 * - DBC `swap` and DAMM v2 `swap` (SOL in): the wrapped SOL account the SDK funded (a System
 *   transfer in the same transaction) gives `amount_in`, and the payer's output token account
 *   rises by what `swapOut` says (default: `minimum_amount_out`);
 * - the Jupiter route of the Jupiter API test double (infra/testing/jupiter-api-double.ts): the
 *   wrapped SOL account gives the amount in, the user's destination account rises by what
 *   `swapOut` says (pool "jupiter"; default the minimum out: quoted out less slippage), in
 *   the mint's `decimals` (default 6);
 * - SPL `burnChecked`: the account falls by the amount;
 * - DBC `claim_trading_fee`: EvtClaimTradingFee (the pool's partner SOL fee, up to the
 *   instruction's max; none of the coin side when its max is 0) and the claimer's SOL rises;
 * - DAMM v2 `claim_position_fee`: EvtClaimPositionFee (the position's fees) and the owner's SOL rises;
 * - System `transfer`: the lamports move.
 * Event CPIs are emitted as the programs emit them: an inner instruction of the program,
 * signed by its event authority (an account of the outer instruction).
 */
import BN from "bn.js";
import { PublicKey, SystemInstruction, SystemProgram, TransactionInstruction, type VersionedTransaction } from "@solana/web3.js";
import { TOKEN_PROGRAM_ID, decodeBurnCheckedInstruction } from "@solana/spl-token";
import { DAMM_V2, DBC, type ProgramCoder } from "../../../ingest/decoders/program-coder";
import { eventCpi } from "../../../ingest/decoders/testing";
import type { LandedEffects, LandedInstruction, LandedTokenBalance } from "../../../infra/testing/rpc-double-landing";
import { jupiterRouteOf } from "../../../infra/testing/jupiter-api-double";

export type ProgramState = {
  /** what a swap on `pool` gives for `amountIn` (default the instruction's minimum out) */
  swapOut?: (pool: string, amountIn: bigint, minimumOut: bigint) => bigint;
  /** decimals of mints the double cannot read from an instruction (Jupiter's output mint) */
  decimals?: Map<string, number>;
  /** a DBC pool's partner SOL fee (what a claim takes), and its coin-side fee */
  partnerFee: Map<string, { quote: bigint; base: bigint }>;
  /** a DAMM v2 position's fees: token A (the coin), token B (SOL) */
  positionFee: Map<string, { a: bigint; b: bigint }>;
  /** token balances before each transaction, by account (kept up to date by the double) */
  balances: Map<string, bigint>;
  /** the decimals and owner of token accounts the double has seen */
  tokenAccounts: Map<string, { mint: string; owner: string; decimals: number }>;
};

export const programState = (): ProgramState => ({ partnerFee: new Map(), positionFee: new Map(), balances: new Map(), tokenAccounts: new Map() });

type Ix = { programId: string; keys: string[]; data: Uint8Array };

function decoded(program: ProgramCoder, ix: Ix): { name: string; args: any; account: (n: string) => string } | null {
  if (ix.programId !== program.programId) return null;
  let d: { name: string; data: any } | null = null;
  try {
    d = program.coder.instruction.decode(Buffer.from(ix.data)) as { name: string; data: any } | null;
  } catch {
    return null;
  }
  if (!d) return null;
  const info = program.ixByName.get(d.name)!;
  return { name: d.name, args: d.data, account: (n) => ix.keys[info.accountIndex.get(n)!]! };
}

/** The effects of each landed transaction under `state` (for rpc.setLandedEffects); `state` follows them. */
export function programEffectsTestDouble(state: ProgramState) {
  return (tx: VersionedTransaction): LandedEffects => {
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    const ixs: Ix[] = tx.message.compiledInstructions.map((c) => ({ programId: keys[c.programIdIndex]!, keys: c.accountKeyIndexes.map((i) => keys[i]!), data: c.data }));
    const lamportDeltas: { account: string; delta: bigint }[] = [];
    const inner: { index: number; instructions: LandedInstruction[] }[] = [];
    const moved = new Map<string, bigint>();
    const token = (acct: string, mint: string, owner: string, decimals: number, delta: bigint) => {
      state.tokenAccounts.set(acct, { mint, owner, decimals });
      moved.set(acct, (moved.get(acct) ?? 0n) + delta);
    };
    const event = (index: number, program: ProgramCoder, name: string, fields: Record<string, unknown>, authority: string) => {
      const ev = eventCpi(program, name, fields);
      inner.push({ index, instructions: [{ programId: ev.programId, accounts: [authority], data: ev.data }] });
    };
    ixs.forEach((ix, index) => {
      const dbc = decoded(DBC, ix);
      const damm = decoded(DAMM_V2, ix);
      const swap = dbc?.name === "swap" ? dbc : damm?.name === "swap" ? damm : null;
      if (swap) {
        const p = swap.args.params ?? swap.args._params;
        const amountIn = BigInt(p.amount_in.toString());
        const minOut = BigInt(p.minimum_amount_out.toString());
        const pool = swap.account("pool");
        const out = state.swapOut ? state.swapOut(pool, amountIn, minOut) : minOut;
        const payer = swap.account("payer");
        const mint = swap === dbc ? swap.account("base_mint") : swap.account("token_a_mint");
        token(swap.account("output_token_account"), mint, payer, 6, out);
        // the SOL in is the wrapped SOL the SDK's transfer put in the input account (closed, with any rest, after)
        lamportDeltas.push({ account: swap.account("input_token_account"), delta: -amountIn });
        return;
      }
      const route = jupiterRouteOf(ix);
      if (route) {
        const minOut = (route.quotedOutAmount * BigInt(10_000 - route.slippageBps)) / 10_000n;
        token(route.destination, route.mint, route.user, state.decimals?.get(route.mint) ?? 6, state.swapOut ? state.swapOut("jupiter", route.inAmount, minOut) : minOut);
        lamportDeltas.push({ account: route.source, delta: -route.inAmount });
        return;
      }
      if (dbc?.name === "claim_trading_fee") {
        const pool = dbc.account("pool");
        const fee = state.partnerFee.get(pool) ?? { quote: 0n, base: 0n };
        const quote = min(fee.quote, BigInt(dbc.args.max_amount_b.toString()));
        const base = min(fee.base, BigInt(dbc.args.max_amount_a.toString()));
        state.partnerFee.set(pool, { quote: fee.quote - quote, base: fee.base - base });
        event(index, DBC, "EvtClaimTradingFee", { pool: new PublicKey(pool), token_base_amount: new BN(base.toString()), token_quote_amount: new BN(quote.toString()) }, dbc.account("event_authority"));
        lamportDeltas.push({ account: dbc.account("fee_claimer"), delta: quote });
        return;
      }
      if (damm?.name === "claim_position_fee") {
        const position = damm.account("position");
        const fee = state.positionFee.get(position) ?? { a: 0n, b: 0n };
        state.positionFee.set(position, { a: 0n, b: 0n });
        const owner = damm.account("signer");
        event(
          index,
          DAMM_V2,
          "EvtClaimPositionFee",
          { pool: new PublicKey(damm.account("pool")), position: new PublicKey(position), owner: new PublicKey(owner), fee_a_claimed: new BN(fee.a.toString()), fee_b_claimed: new BN(fee.b.toString()) },
          damm.account("event_authority"),
        );
        lamportDeltas.push({ account: owner, delta: fee.b });
        return;
      }
      if (ix.programId === TOKEN_PROGRAM_ID.toBase58() && ix.data[0] === 15) {
        const b = decodeBurnCheckedInstruction(new TransactionInstruction({ programId: TOKEN_PROGRAM_ID, keys: ix.keys.map((k, i) => ({ pubkey: new PublicKey(k), isSigner: i === 2, isWritable: i < 2 })), data: Buffer.from(ix.data) }));
        token(b.keys.account.pubkey.toBase58(), b.keys.mint.pubkey.toBase58(), b.keys.owner.pubkey.toBase58(), b.data.decimals, -b.data.amount);
        return;
      }
      if (ix.programId === SystemProgram.programId.toBase58() && ix.data.length === 12 && new DataView(ix.data.buffer, ix.data.byteOffset).getUint32(0, true) === 2) {
        const t = SystemInstruction.decodeTransfer(new TransactionInstruction({ programId: SystemProgram.programId, keys: ix.keys.map((k, i) => ({ pubkey: new PublicKey(k), isSigner: i === 0, isWritable: true })), data: Buffer.from(ix.data) }));
        lamportDeltas.push({ account: t.fromPubkey.toBase58(), delta: -BigInt(t.lamports) }, { account: t.toPubkey.toBase58(), delta: BigInt(t.lamports) });
      }
    });
    const tokenBalances: LandedTokenBalance[] = [...moved].map(([acct, delta]) => {
      const a = state.tokenAccounts.get(acct)!;
      const pre = state.balances.get(acct) ?? null;
      const post = (pre ?? 0n) + delta;
      state.balances.set(acct, post);
      return { account: acct, mint: a.mint, owner: a.owner, decimals: a.decimals, pre, post };
    });
    return { tokenBalances, lamportDeltas, innerInstructions: inner };
  };
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
