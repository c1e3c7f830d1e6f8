/**
 * The coin facts a cycle gives the model, from the Data API's own reads (so the agent sees
 * what holders see): the agent's `market` object and its newest public activity items
 * (trades included). A coin the Data API does not show (hidden, not yet on the board)
 * gives null and [].
 */
import type { PublicDeps } from "../../api/public/agents-service";
import { getAgent } from "../../api/public/agents-service";
import { listActivity } from "../../api/public/feed-service";
import { DEFAULT_ACTIVITY_KINDS } from "../../api/public/model";
import type { MarketReader } from "./cycle";

const RECENT_ACTIVITY = 8;

export function dataApiMarket(deps: PublicDeps): MarketReader {
  return {
    async facts(mint) {
      return (await getAgent(deps, mint)).market;
    },
    async activity(mint) {
      const page = await listActivity(deps, mint, { kinds: [...DEFAULT_ACTIVITY_KINDS, "trade"], limit: RECENT_ACTIVITY });
      return page.items.map((i) => ({ kind: i.kind, at: i.at, text: i.text }));
    },
  };
}
