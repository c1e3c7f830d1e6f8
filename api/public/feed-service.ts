/**
 * Trades and activity of the Data API, newest first, keyset-paginated.
 */
import { WSOL_MINT, type ConfigRegistry, type QuoteInfo } from "../../ingest/contract/configs";
import { formatUnits } from "../../ingest/contract/market-math";
import type { PublicDeps } from "./agents-service";
import { toIso } from "./agents-service";
import { decodeCursor, encodeCursor, CURSOR_POSITIONS, DEFAULT_ACTIVITY_KINDS, type ActivityKind } from "./model";
import { notFound } from "../errors";
import { creatorPayoutItems, cursorSecond, payoutWindowPart, treasuryFeedParts, type PayoutTuple } from "./treasury-sql";

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
  const stored = kinds.filter((k) => k !== "trade");
  const treasuryKinds = kinds.filter((k): k is TreasuryKind => (TREASURY_KINDS as readonly string[]).includes(k));
  const parts: string[] = [];
  // the global feed leaves hidden agents out in the query itself, so its pages stay full;
  // its trades come from `trade_feed` (keyed by time: the newest are read from the end)
  const hidden = mint ? [] : await hiddenMints(deps);
  const mintFilter = mint ? "mint = {mint:String}" : hidden.length ? "mint NOT IN {hidden:Array(String)}" : "1";
  if (stored.length)
    parts.push(`SELECT mint, toUnixTimestamp64Milli(at) AS at_ms, id, toString(kind) AS kind, text, body, data, links
                FROM activity WHERE ${mintFilter} AND kind IN {kinds:Array(String)}
                ${pos ? "AND (toUnixTimestamp64Milli(at), id) < ({pa:Int64}, {pi:String})" : ""}
                ORDER BY at DESC, id DESC LIMIT {inner_limit:UInt32}`);
  if (kinds.includes("trade"))
    parts.push(`SELECT mint, toInt64(toUnixTimestamp(at)) * 1000 AS at_ms,
                  concat('trade:', leftPad(toString(slot), 12, '0'), ':', signature, ':', toString(ix), ':', toString(inner)) AS id, 'trade' AS kind,
                  concat(side, ' ', toString(amount_quote), ' ', toString(amount_base), ' ', toString(base_decimals), ' ', trader, ' ', quote_mint) AS text,
                  CAST(NULL, 'Nullable(String)') AS body, '' AS data, signature AS links
                ${mint ? "FROM trades" : "FROM trade_feed"} WHERE ${mintFilter}
                ${pos ? `AND (at_ms, id) < ({pa:Int64}, {pi:String})${mint ? "" : " AND at <= toDateTime(intDiv({pa:Int64}, 1000), 'UTC')"}` : ""}
                ${mint ? "ORDER BY slot DESC, signature DESC, ix DESC, inner DESC" : "ORDER BY at DESC, slot DESC, signature DESC, ix DESC, inner DESC"}
                LIMIT {inner_limit:UInt32}`);
  const platformToken = deps.treasury?.platformTokenMint ?? "";
  parts.push(...treasuryFeedParts({ mint, kinds: treasuryKinds, hidden, platformToken, cursor: pos !== null }));
  // creator payouts across coins are classified here (creatorPayoutItems: their read widens until a page is full) and merged
  // in the same order; their first window is read with the other parts, as a row of its own
  const acrossCoins = mint === null && treasuryKinds.includes("creator_payout");
  if (parts.length === 0 && !acrossCoins) return { rows: [] as ActivityRow[], agents: new Map<string, AgentSummary>(), nextCursor: null };
  const cursor: [number, string] | null = pos ? [Number(pos[0]), String(pos[1])] : null;
  const window = acrossCoins ? payoutWindowPart(q.limit + 1, "payout_scan", cursor !== null) : null;
  // LIMIT 1 BY id: an item written again (a publisher's retry after a crash, ReplacingMergeTree) is listed once before
  // the engine merges its copies
  const reads = [
    parts.length
      ? `(SELECT toString(at_ms) AS at_ms, * EXCEPT at_ms FROM (${parts.join(" UNION ALL ")})
          ${pos ? "WHERE (toInt64(at_ms), id) < ({pa:Int64}, {pi:String})" : ""}
          ORDER BY toInt64(at_ms) DESC, id DESC LIMIT 1 BY id LIMIT {limit:UInt32})`
      : null,
    window
      ? `(SELECT '' AS at_ms, '' AS mint, '' AS id, '${PAYOUT_WINDOW}' AS kind, '' AS text, CAST(NULL, 'Nullable(String)') AS body, toJSONString(x) AS data, '' AS links
          FROM (${window.sql}))`
      : null,
  ].filter((r) => r !== null);
  // the agent check (Postgres, which also gives the agent's summary) runs beside the read; a 404 drops its answer
  const [agent, read] = await Promise.all([
    mint ? publicAgentSummary(deps, mint) : null,
    deps.ch.query<ActivityRow>(reads.join(" UNION ALL "), {
      mint, hidden, kinds: stored, limit: q.limit + 1, inner_limit: q.limit + 64, platform_token: platformToken,
      ...(cursor ? { pa: pos![0], pi: pos![1], until: cursorSecond(cursor) } : {}), ...window?.params,
    }),
  ]);
  const first = read.find((r) => r.kind === PAYOUT_WINDOW);
  const storedRows = first ? read.filter((r) => r !== first) : read;
  // at most a page of payouts is needed (classified payouts are each listed once: no margin for LIMIT 1 BY id)
  const payouts = first ? await creatorPayoutItems(deps.ch, { hidden, limit: q.limit + 1, cursor, first: JSON.parse(first.data) as PayoutTuple[] }) : [];
  // the rows of a UNION ALL come in no set order: a page with payouts is sorted here
  const rows = first ? [...storedRows, ...(payouts as ActivityRow[])].sort(newestFirst).slice(0, q.limit + 1) : storedRows;
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

/** The kind of the feed read's row that carries the first window of the creator payouts (no item has it). */
const PAYOUT_WINDOW = "~payout_window";

/** Feed kinds read from the treasury's flows (ClickHouse `treasury_flows`). */
const TREASURY_KINDS = ["creator_payout", "platform_buyback"] as const;
type TreasuryKind = (typeof TREASURY_KINDS)[number];

/** Newest first by (at, id), as the feed's query orders its rows (ids compared as bytes, as ClickHouse does). */
const newestFirst = (a: ActivityRow, b: ActivityRow) => Number(b.at_ms) - Number(a.at_ms) || Buffer.compare(Buffer.from(b.id), Buffer.from(a.id));

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
