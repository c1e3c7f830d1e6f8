/** EvtCurveComplete: the swap that filled the curve; the mint comes from that swap instruction. */
import type { CurveComplete } from "../contract/facts";
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

function decodeCurveComplete(ev: any, site: Site): void {
  // any instruction that can fill the curve (swap variants) names the base mint
  const parent = requireParent(site);
  const pool = ev.pool;
  requireSame("pool", pool, account(parent, "pool"));
  const fact: CurveComplete = {
    ...factKey(site),
    kind: "curve_complete",
    pool,
    config: ev.config,
    mint: account(parent, "base_mint"),
    baseReserve: ev.base_reserve,
    quoteReserve: ev.quote_reserve,
  };
  site.out.facts.push(fact);
}

export const curveCompleteDecoders: EventDecoder[] = ["EvtCurveComplete", "EvtCurveCompleteWithTransferHook"].map(
  (event) => eventDecoder(DBC, event, decodeCurveComplete),
);
