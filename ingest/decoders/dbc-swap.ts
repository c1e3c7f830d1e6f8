/**
 * DBC swaps. Current programs emit EvtSwap2 and, beside it for the same swap, the legacy
 * EvtSwap; older ones only EvtSwap. One trade per swap: legacy events are set aside and
 * decoded only when the transaction has no EvtSwap2 at all (which also saves their cost).
 */
import type { DecodedTransaction, Trade } from "../contract/facts";
import { feesIn } from "./fee-currency";
import { DBC, decodeEventBody } from "./program-coder";
import {
  account,
  DecodeError,
  errorMessage,
  type EventDecoder,
  factKey,
  requireParent,
  requireSame,
  type Site,
  type TxState,
} from "./site";

const SWAP_INSTRUCTIONS = ["swap", "swap2", "swap2_with_transfer_hook"] as const;

/** trade_direction: 0 = base -> quote (sell), 1 = quote -> base (buy) */
function side(direction: number): "buy" | "sell" {
  if (direction === 1) return "buy";
  if (direction === 0) return "sell";
  throw new DecodeError(`trade_direction ${direction}`);
}

/** `feesOnInput`: the event shows a fee taken from the input (fee-currency.ts). */
function trade(ev: any, site: Site, amountIn: bigint, feesOnInput: boolean, quoteReserve: bigint, threshold: bigint): Trade {
  const parent = requireParent(site, SWAP_INSTRUCTIONS);
  const pool = ev.pool;
  requireSame("pool", pool, account(parent, "pool"));
  const s = side(ev.trade_direction);
  const r = ev.swap_result;
  const amountOut = r.output_amount;
  return {
    ...factKey(site),
    kind: "trade",
    venue: "dbc",
    pool,
    config: ev.config,
    mint: account(parent, "base_mint"),
    quoteMint: account(parent, "quote_mint"),
    side: s,
    trader: account(parent, "payer"),
    amountQuote: s === "buy" ? amountIn : amountOut,
    amountBase: s === "buy" ? amountOut : amountIn,
    sqrtPrice: r.next_sqrt_price,
    quoteReserve,
    migrationThreshold: threshold,
    tradingFee: r.trading_fee,
    protocolFee: r.protocol_fee,
    referralFee: r.referral_fee,
    feesIn: feesIn(s, feesOnInput, r.trading_fee + r.protocol_fee + r.referral_fee),
  };
}

function swap2(event: string): EventDecoder {
  return {
    program: DBC,
    event,
    decode(ins, site) {
      // set before decoding: a malformed EvtSwap2 is an error, not a reason to fall back to EvtSwap
      site.state.sawDbcSwap2 = true;
      const ev = decodeEventBody(DBC, event, ins.data);
      const r = ev.swap_result;
      const amountIn = r.included_fee_input_amount;
      const onInput = r.excluded_fee_input_amount < amountIn;
      site.out.facts.push(trade(ev, site, amountIn, onInput, ev.quote_reserve_amount, ev.migration_threshold));
    },
  };
}

export const dbcSwapDecoders: EventDecoder[] = [
  swap2("EvtSwap2"),
  swap2("EvtSwap2WithTransferHook"),
  // the instruction, not its data: an EvtSwap beside an EvtSwap2 is never decoded, not even from base58
  { program: DBC, event: "EvtSwap", decode: (ins, site) => void site.state.legacySwaps.push({ ins, site }), defers: true },
];

/** End of transaction: legacy EvtSwap trades, when no EvtSwap2 superseded them. */
export function settleLegacySwaps(out: DecodedTransaction, state: TxState): void {
  if (state.sawDbcSwap2 || state.legacySwaps.length === 0) return;
  for (const { ins, site } of state.legacySwaps) {
    try {
      const ev = decodeEventBody(DBC, "EvtSwap", ins.data);
      // amount_in, not swap_result.actual_input_amount: the latter excludes a fee taken from
      // the input (a 0.2 SOL buy reports 0.196), while EvtSwap2's included_fee_input_amount
      // and the vault balance change are 0.2. The legacy event has no reserve or threshold.
      // A fee taken from the input is what makes actual_input_amount less than amount_in.
      out.facts.push(trade(ev, site, ev.amount_in, ev.swap_result.actual_input_amount < ev.amount_in, 0n, 0n));
    } catch (e) {
      out.errors.push({ ix: site.ix, inner: site.inner, message: `EvtSwap: ${errorMessage(e)}` });
    }
  }
  // keep facts in execution order
  out.facts.sort((a, b) => a.ix - b.ix || a.inner - b.inner);
}
