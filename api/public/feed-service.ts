/**
 * Trades and activity of the Data API, newest first, keyset-paginated.
 */
import { WSOL_MINT, type ConfigRegistry, type QuoteInfo } from "../../ingest/contract/configs";
import { formatUnits } from "../../ingest/contract/market-math";
import type { PublicDeps } from "./agents-service";
import { toIso } from "./agents-service";
import { decodeCursor, encodeCursor, CURSOR_POSITIONS, DEFAULT_ACTIVITY_KINDS, type ActivityKind } from "./model";
import { notFound } from "../errors";
import { NEWEST, creatorPayoutItems, cursorSecond, itemId, olderThanCursor, payoutWindowList, treasuryFeedParts, type FeedPart, type PayoutTuple } from "./treasury-sql";
import { listsRead } from "./parts";

export type TradeRow = {
  mint: string; signature: string; ix: number; inner: number; slot_text: string; at: string; side: string; trader: string;
  amount_quote: string; amount_base: string; base_decimals: number; price_sol: number; quote_mint: string;
};

const TRADE_COLUMNS = `mint, signature, ix, inner, toString(slot) AS slot_text, at, side, trader, toString(amount_quote) AS amount_quote,
  toString(amount_base) AS amount_base, base_decimals, price_sol, quote_mint`;

export async function listTrades(deps: PublicDeps, mint: string, q: { limit: number; cursor?: string }) {
  const pos = decodeCursor(`trades:${mint}`, q.cursor, CURSOR_POSITIONS.trades);
  // the agent check (Postgres) runs beside the read; a 404 drops the read's answer
  const [, rows] = await Promise.all([publicAgentSummary(deps, mint), deps.ch.query<TradeRow>(
    `SELECT ${TRADE_COLUMNS} FROM trades WHERE mint = {mint:String}
     ${pos ? "AND (slot, signature, ix, inner) < (toUInt64({s:String}), {g:String}, {i:UInt16}, {n:Int16})" : ""}
     ORDER BY slot DESC, signature DESC, ix DESC, inner DESC LIMIT {limit:UInt32}`,
    { mint, limit: q.limit + 1, ...(pos ? { s: pos[0], g: pos[1], i: pos[2], n: pos[3] } : {}) },
  )]);
  const solUsd = (await deps.price.current())?.usd ?? deps.price.lastKnown()?.usd ?? 0;
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: page.map((t) => tradeItem(t, solUsd, stockQuote(deps.configs, t.quote_mint))),
    nextCursor: rows.length > q.limit && last ? encodeCursor(`trades:${mint}`, [last.slot_text, last.signature, last.ix, last.inner]) : null,
  };
}

/** The tokenized stock a paired coin trades against, from the platform's stock configs; undefined for SOL. */
export function stockQuote(configs: ConfigRegistry, quoteMint: string): QuoteInfo | undefined {
  if (quoteMint === WSOL_MINT || quoteMint === "") return undefined;
  return configs.all.find((c) => c.quote.kind === "stock" && c.quote.mint === quoteMint)?.quote;
}

/**
 * A paired coin's trade carries the stock amount in `quote`, shaped like Solana's token
 * amounts: `amount` in atoms (string), `uiAmount` in whole stock units as wallets show
 * it. Its SOL fields still hold the stock amounts: no source of a stock's SOL price is
 * wired in yet (README, "Known gaps").
 */
export function tradeItem(t: TradeRow, solUsd: number, stock: QuoteInfo | undefined) {
  const amountSol = formatUnits(BigInt(t.amount_quote), stock?.decimals ?? 9);
  return {
    signature: t.signature,
    mint: t.mint,
    at: toIso(t.at),
    slot: Number(t.slot_text),
    side: t.side,
    trader: t.trader,
    amountSol,
    amountUsd: Number(amountSol) * solUsd,
    amountToken: formatUnits(BigInt(t.amount_base), t.base_decimals),
    priceSol: t.price_sol,
    priceUsd: t.price_sol * solUsd,
    quote: stock ? { mint: stock.mint, symbol: stock.symbol, amount: t.amount_quote, uiAmount: Number(amountSol) } : null,
  };
}

export type ActivityRow = { mint: string; at_ms: string; id: string; kind: string; text: string; body: string | null; data: string; links: string };

/**
 * Activity of one agent (mint) or of all; trades join in only when `kinds` asks for them.
 * Order: newest first by (at, id). A trade's id starts with its zero-padded slot, so
 * within one second the (at, id) order is the trades table's own order and the trade
 * part can be read in key order and cut at the page size.
 */
export async function listActivity(deps: PublicDeps, mint: string | null, q: { kinds?: string[]; limit: number; cursor?: string }) {
  const kinds = (q.kinds ?? DEFAULT_ACTIVITY_KINDS) as ActivityKind[];
  const { rows, agents, nextCursor } = await activityPage(deps, "activity", mint, { kinds, limit: q.limit, cursor: q.cursor });
  const summary = (m: string) => {
    const a = agents.get(m);
    return a && { name: a.name, symbol: a.symbol, imageUrl: a.imageUrl, category: a.category };
  };
  return { items: rows.map((r) => activityItem(r, summary(r.mint), deps.configs)), nextCursor };
}

/**
 * One page of stored activity and trades, newest first, with the public agents it names
 * (an agent hidden between the reads is dropped; the cursor still follows the rows read).
 * `list` names the list its cursors belong to; 404 for a hidden or unknown agent (`mint`).
 */
export async function activityPage(deps: PublicDeps, list: string, mint: string | null, q: { kinds: readonly string[]; limit: number; cursor?: string }) {
  const kinds = q.kinds;
  const key = `${list}:${mint ?? "*"}:${[...kinds].sort().join(",")}`;
  const pos = decodeCursor(key, q.cursor, CURSOR_POSITIONS.activity);
  const cursor: [number, string] | null = pos ? [Number(pos[0]), String(pos[1])] : null;
  const stored = kinds.filter((k) => k !== "trade");
  const treasuryKinds = kinds.filter((k): k is TreasuryKind => (TREASURY_KINDS as readonly string[]).includes(k));
  // the global feed leaves hidden agents out in the query itself, so its pages stay full;
  // its trades come from `trade_feed` (keyed by time: the newest are read from the end)
  const hidden = mint ? [] : await hiddenMints(deps);
  const mintFilter = mint ? "mint = {mint:String}" : hidden.length ? "mint NOT IN {hidden:Array(String)}" : "1";
  // each part reads its newest `inner_limit` rows after the cursor, raw (the engine plans fewer expressions); the page is
  // made here. The margin past the page covers the copies LIMIT 1 BY id drops and the items of one transaction whose ids
  // order otherwise than the key the part is read in.
  const parts: Record<string, FeedPart<ActivityRow>> = {};
  if (stored.length)
    parts.activity = {
      columns: "mint, toUnixTimestamp64Milli(at), id, kind, text, body, data, links",
      from: `FROM activity WHERE ${mintFilter} AND kind IN {kinds:Array(String)}
             ${pos ? "AND (toUnixTimestamp64Milli(at), id) < ({pa:Int64}, {pi:String})" : ""}
             ORDER BY at DESC, id DESC LIMIT {inner_limit:UInt32}`,
      rows: (x) =>
        (x as [string, string, string, string, string, string | null, string, string][]).map(([mint, at, id, kind, text, body, data, links]) => ({
          mint, at_ms: String(at), id, kind, text, body, data, links,
        })),
    };
  if (kinds.includes("trade"))
    parts.trade = {
      columns: "mint, toUnixTimestamp(at), slot, signature, ix, inner, side, amount_quote, amount_base, base_decimals, trader, quote_mint",
      from: `${mint ? "FROM trades" : "FROM trade_feed"} WHERE ${mintFilter} ${olderThanCursor("trade", cursor !== null)}
             ORDER BY ${mint ? "slot DESC, signature DESC, ix DESC, inner DESC" : NEWEST} LIMIT {inner_limit:UInt32}`,
      rows: (x) =>
        (x as [string, number, string, string, number, number, string, string, string, number, string, string][]).map(
          ([mint, at, slot, signature, ix, inner, side, quote, base, decimals, trader, quoteMint]) => ({
            mint, at_ms: String(at * 1000), id: itemId("trade", String(slot), signature, ix, inner), kind: "trade",
            text: `${side} ${quote} ${base} ${decimals} ${trader} ${quoteMint}`, body: null, data: "", links: signature,
          }),
        ),
    };
  Object.assign(parts, treasuryFeedParts({ mint, kinds: treasuryKinds, hidden, platformToken: deps.treasury?.platformTokenMint ?? "", cursor: cursor !== null }));
  // creator payouts across coins are classified here (creatorPayoutItems: their read widens until a page is full) and
  // merged in the same order; their first window is read with the other parts
  const window = mint === null && treasuryKinds.includes("creator_payout") ? payoutWindowList(q.limit + 1, "payout_scan", cursor !== null) : null;
  if (Object.keys(parts).length === 0 && !window) return { rows: [] as ActivityRow[], agents: new Map<string, AgentSummary>(), nextCursor: null };
  // the agent check (Postgres, which also gives the agent's summary) runs beside the read; a 404 drops its answer
  const [agent, read] = await Promise.all([
    mint ? publicAgentSummary(deps, mint) : null,
    listsRead(deps.ch, { ...parts, ...(window ? { [PAYOUT_WINDOW]: window } : {}) }, {
      mint, hidden, kinds: stored, inner_limit: q.limit + 64, ...(cursor ? { pa: pos![0], pi: pos![1], until: cursorSecond(cursor) } : {}), ...window?.params,
    }),
  ]);
  // at most a page of payouts is needed (classified payouts are each listed once)
  const payouts = window ? await creatorPayoutItems(deps.ch, { hidden, limit: q.limit + 1, cursor, first: read[PAYOUT_WINDOW] as PayoutTuple[] }) : [];
  // LIMIT 1 BY id: an item written again (a publisher's retry after a crash, ReplacingMergeTree) is listed once before
  // the engine merges its copies
  const seen = new Set<string>();
  const rows = newestFirst([...Object.entries(parts).flatMap(([name, part]) => part.rows(read[name]!)), ...payouts])
    .filter((r) => !seen.has(r.id) && seen.add(r.id))
    .slice(0, q.limit + 1);
  const page = rows.slice(0, q.limit);
  const agents = agent && mint ? new Map([[mint, { hidden: false, summary: agent }]]) : await agentRows(deps, [...new Set(page.map((r) => r.mint))]);
  const last = page.at(-1);
  const shown = new Map([...agents].filter(([, a]) => !a.hidden).map(([m, a]) => [m, a.summary]));
  return {
    rows: page.filter((r) => !agents.get(r.mint)?.hidden),
    agents: shown,
    nextCursor: rows.length > q.limit && last ? encodeCursor(key, [Number(last.at_ms), last.id]) : null,
  };
}

/** What a feed item says of its agent: its display name (own name, else the coin's), and the rest. */
export type AgentSummary = { name: string; symbol: string; imageUrl: string; category: string; template: string; presence: string };
type Summary = { name: string; symbol: string; imageUrl: string; category: string };

/** An agent's summary for its own trades or feed; 404 when there is no public agent with this mint. */
export async function publicAgentSummary(deps: PublicDeps, mint: string): Promise<AgentSummary> {
  const agent = (await agentRows(deps, [mint])).get(mint);
  if (!agent || agent.hidden) throw notFound(`no public agent with mint ${mint}`);
  return agent.summary;
}

/** Mints of hidden agents (moderation: a handful, not thousands). */
export async function hiddenMints(deps: Pick<PublicDeps, "sql">): Promise<string[]> {
  return (await deps.sql<{ mint: string }[]>`SELECT mint FROM agents WHERE hidden`).map((r) => r.mint);
}

async function agentRows(deps: PublicDeps, mints: string[]): Promise<Map<string, { hidden: boolean; summary: AgentSummary }>> {
  if (mints.length === 0) return new Map();
  const rows = await deps.sql<{ mint: string; hidden: boolean; name: string; symbol: string; image_url: string; category: string; template: string; presence: string }[]>`
    SELECT mint, hidden, COALESCE(NULLIF(name, ''), coin_name) AS name, symbol, image_url, category, template, presence FROM agents WHERE mint IN ${deps.sql(mints)}`;
  return new Map(
    rows.map((r) => [r.mint, { hidden: r.hidden, summary: { name: r.name, symbol: r.symbol, imageUrl: r.image_url, category: r.category, template: r.template, presence: r.presence } }]),
  );
}

/** The part of the feed's read that holds the first window of the creator payouts across coins. */
const PAYOUT_WINDOW = "payout_window";

/** Feed kinds read from the treasury's flows (ClickHouse `treasury_flows`). */
const TREASURY_KINDS = ["creator_payout", "platform_buyback"] as const;
type TreasuryKind = (typeof TREASURY_KINDS)[number];

/** Rows newest first by (at, id), ids compared as bytes (as ClickHouse compares strings). */
function newestFirst<R extends { at_ms: string; id: string }>(rows: R[]): R[] {
  return rows
    .map((r) => ({ r, ms: Number(r.at_ms), id: Buffer.from(r.id) }))
    .sort((a, b) => b.ms - a.ms || Buffer.compare(b.id, a.id))
    .map((x) => x.r);
}

/** An activity item of the Data API; the Application API's feed item is built from it. */
export function activityItem(r: ActivityRow, agent: Summary | undefined, configs: ConfigRegistry) {
  const base = { id: r.id, kind: r.kind, at: new Date(Number(r.at_ms)).toISOString(), mint: r.mint, agent: agent ?? null };
  if (r.kind === "creator_payout" || r.kind === "platform_buyback") {
    const data = JSON.parse(r.data) as { lamports: string; creator?: string; atoms?: string };
    const sol = `${formatUnits(BigInt(data.lamports), 9)} SOL`;
    const text = r.kind === "creator_payout" ? `The platform paid ${sol} to the creator ${short(data.creator!)}.` : `The platform bought back its token for ${sol}.`;
    return { ...base, text, body: null, data, links: JSON.parse(r.links) };
  }
  if (r.kind !== "trade") {
    return { ...base, text: r.text, body: r.body, data: JSON.parse(r.data || "{}"), links: JSON.parse(r.links || "{}") };
  }
  const [side, lamports, atoms, decimals, trader, quoteMint] = r.text.split(" ");
  const stock = stockQuote(configs, quoteMint ?? "");
  const paid = `${formatUnits(BigInt(lamports!), stock?.decimals ?? 9)} ${stock?.symbol ?? "SOL"}`;
  const tokens = formatUnits(BigInt(atoms!), Number(decimals));
  const symbol = agent?.symbol ?? "";
  return {
    ...base,
    text: side === "buy" ? `${short(trader!)} bought ${tokens} $${symbol} for ${paid}.` : `${short(trader!)} sold ${tokens} $${symbol} for ${paid}.`,
    body: null,
    data: { side, trader, lamports, atoms },
    links: { signature: r.links },
  };
}

const short = (address: string) => `${address.slice(0, 4)}…${address.slice(-4)}`;
