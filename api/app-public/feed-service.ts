/**
 * The Application API's feed: the spec's feed item, built from the Data API's activity
 * (launches and trades from chain facts; the agents' own kinds as they are stored).
 */
import { activityPage, activityItem } from "../public/feed-service";
import type { PublicDeps } from "../public/agents-service";
import { DEFAULT_FEED_KINDS } from "./model";

export async function listFeed(deps: PublicDeps, mint: string | null, q: { kinds?: string[]; limit: number; cursor?: string }) {
  const { rows, agents, nextCursor } = await activityPage(deps, "feed", mint, { kinds: q.kinds ?? DEFAULT_FEED_KINDS, limit: q.limit, cursor: q.cursor });
  return {
    items: rows.map((r) => {
      const a = agents.get(r.mint);
      const item = activityItem(r, a, deps.configs);
      return {
        id: item.id,
        kind: item.kind,
        at: item.at,
        mint: item.mint,
        agent: a ? { name: a.name, symbol: a.symbol, imageUrl: a.imageUrl, template: a.template, presence: a.presence } : null,
        body: item.body,
        data: item.data,
        links: item.links,
      };
    }),
    nextCursor,
  };
}
