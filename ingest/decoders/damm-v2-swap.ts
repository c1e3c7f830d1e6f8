/**
 * DAMM v2 (cp-amm) swaps from EvtSwap2. A graduated platform coin is token A and the quote
 * is token B, so A -> B (trade_direction 0) is a sell. Older cp-amm versions emitted an
 * EvtSwap the current IDL no longer knows; those land in `unknown`.
 */
import type { Trade } from "../contract/facts";
import { feesIn } from "./fee-currency";
import { DAMM_V2 } from "./program-coder";
import {
  account,
  DecodeError,
  type EventDecoder,
  eventDecoder,
  factKey,
  requireParent,
  requireSame,
  type Site,
} from "./site";

const SWAP_INSTRUCTIONS = ["swap", "swap2"] as const;

function decodeSwap2(ev: any, site: Site): void {
  const parent = requireParent(site, SWAP_INSTRUCTIONS);
  const pool = ev.pool;
  requireSame("pool", pool, account(parent, "pool"));
  const direction: number = ev.trade_direction;
  if (direction !== 0 && direction !== 1) throw new DecodeError(`trade_direction ${direction}`);
  const side = direction === 1 ? "buy" : "sell";
  const r = ev.swap_result;
  const amountIn = r.included_fee_input_amount;
  const amountOut = r.output_amount;
  const fact: Trade = {
    ...factKey(site),
    kind: "trade",
    venue: "damm_v2",
    pool,
    config: "",
    mint: account(parent, "token_a_mint"),
    quoteMint: account(parent, "token_b_mint"),
    side,
    trader: account(parent, "payer"),
    amountQuote: side === "buy" ? amountIn : amountOut,
    amountBase: side === "buy" ? amountOut : amountIn,
    sqrtPrice: r.next_sqrt_price,
    quoteReserve: ev.reserve_b_amount,
    migrationThreshold: 0n,
    tradingFee: r.claiming_fee,
    protocolFee: r.protocol_fee,
    referralFee: r.referral_fee,
    // the event's collect_fee_mode says the same (0 = BothToken: a buy pays in token A); the
    // amounts are the rule of every swap event (fee-currency.ts)
    feesIn: feesIn(side, r.excluded_fee_input_amount < amountIn, r.claiming_fee + r.protocol_fee + r.referral_fee + r.compounding_fee),
  };
  site.out.facts.push(fact);
}

export const dammSwapDecoders: EventDecoder[] = [eventDecoder(DAMM_V2, "EvtSwap2", decodeSwap2)];
