/** DBC trading-fee claims: the partner (config fee claimer) or the pool creator. */
import type { FeeClaim } from "../contract/facts";
import { DBC } from "./program-coder";
import {
  account,
  type EventDecoder,
  eventDecoder,
  factKey,
  requireParent,
  requireSame,
  type Site,
} from "./site";

function decodeClaim(role: "partner" | "creator", instructions: readonly string[], claimerAccount: string) {
  return (ev: any, site: Site): void => {
    const parent = requireParent(site, instructions);
    const pool = ev.pool;
    requireSame("pool", pool, account(parent, "pool"));
    const fact: FeeClaim = {
      ...factKey(site),
      kind: "fee_claim",
      venue: "dbc",
      role,
      pool,
      mint: account(parent, "base_mint"),
      claimer: account(parent, claimerAccount),
      baseAmount: ev.token_base_amount,
      quoteAmount: ev.token_quote_amount,
    };
    site.out.facts.push(fact);
  };
}

export const dbcFeeClaimDecoders: EventDecoder[] = [
  eventDecoder(
    DBC,
    "EvtClaimTradingFee",
    decodeClaim("partner", ["claim_trading_fee", "claim_trading_fee2"], "fee_claimer"),
  ),
  eventDecoder(
    DBC,
    "EvtClaimCreatorTradingFee",
    decodeClaim("creator", ["claim_creator_trading_fee", "claim_creator_trading_fee2"], "creator"),
  ),
];
