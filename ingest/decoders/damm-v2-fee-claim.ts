/** DAMM v2 position fee claims: token A is the coin, token B the quote. */
import type { FeeClaim } from "../contract/facts";
import { DAMM_V2 } from "./program-coder";
import {
  account,
  type EventDecoder,
  eventDecoder,
  factKey,
  requireParent,
  requireSame,
  type Site,
} from "./site";

function decodeClaimPositionFee(ev: any, site: Site): void {
  const parent = requireParent(site, ["claim_position_fee"]);
  const pool = ev.pool;
  requireSame("pool", pool, account(parent, "pool"));
  const fact: FeeClaim = {
    ...factKey(site),
    kind: "fee_claim",
    venue: "damm_v2",
    role: "position",
    pool,
    mint: account(parent, "token_a_mint"),
    claimer: ev.owner,
    baseAmount: ev.fee_a_claimed,
    quoteAmount: ev.fee_b_claimed,
  };
  site.out.facts.push(fact);
}

export const dammFeeClaimDecoders: EventDecoder[] = [
  eventDecoder(DAMM_V2, "EvtClaimPositionFee", decodeClaimPositionFee),
];
