/**
 * Surplus quote withdrawn after the curve completed. Neither the event nor the withdraw
 * instructions name the base mint, so `mint` is left empty: resolve it from `pool`.
 */
import type { SurplusWithdrawal } from "../contract/facts";
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

function decodeSurplus(role: "partner" | "creator", instruction: string) {
  return (ev: any, site: Site): void => {
    const parent = requireParent(site, [instruction]);
    const pool = ev.pool;
    requireSame("pool", pool, account(parent, "virtual_pool"));
    const fact: SurplusWithdrawal = {
      ...factKey(site),
      kind: "surplus_withdrawal",
      role,
      pool,
      mint: "",
      amount: ev.surplus_amount,
    };
    site.out.facts.push(fact);
  };
}

export const surplusDecoders: EventDecoder[] = [
  eventDecoder(DBC, "EvtPartnerWithdrawSurplus", decodeSurplus("partner", "partner_withdraw_surplus")),
  eventDecoder(DBC, "EvtCreatorWithdrawSurplus", decodeSurplus("creator", "creator_withdraw_surplus")),
];
