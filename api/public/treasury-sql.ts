/**
 * Reads of the treasury's read models (ClickHouse migration 0013) shared by the feed
 * (creator_payout and platform_buyback items) and the platform-wide reads (app-public/:
 * analytics, tokenomics). Payouts are classified when they are written: `treasury_payouts`
 * holds each transfer to an agent's vault or creator, newest first; `treasury_transfers`
 * the same transfers by recipient; `payout_wallets` who each wallet is (an agent's vault
 * outranks any creator; a creator of several coins is named by the newest, then the
 * greatest mint) and what it was paid.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { ListPart } from "./parts";

/** The fact key, newest first. */
export const NEWEST = "at DESC, slot DESC, signature DESC, ix DESC, inner DESC";

/** A feed item's id: its kind, the zero-padded slot (so ids sort as the items within a second), then the rest of the fact's key. */
const feedId = (kind: string) => `concat(${kind}, ':', leftPad(toString(slot), 12, '0'), ':', signature, ':', toString(ix), ':', toString(inner))`;

export type PayoutRow = { at: number; slot: string; signature: string; ix: number; inner: number; recipient: string; lamports: string; mint: string; payout: "vault" | "creator" };
type StoredPayout = PayoutRow & { rank: string };
/** A stored payout as a tuple: [at, slot, signature, ix, inner, recipient, lamports, mint, payout, rank] (PAYOUT_WINDOW). */
export type PayoutTuple = [number, string, string, number, number, string, string, string, "vault" | "creator", string];

/** The first window newestClassified reads for `limit` payouts. */
const firstWindow = (limit: number) => Math.max(64, limit * 4);
/** The newest `{<scan>:UInt32}` stored payouts (`where`: a condition or nothing), newest first. */
const payoutWindow = (scan: string, where = "") => `
  SELECT toUnixTimestamp(at) AS at, toString(slot) AS slot, signature, ix, inner, recipient, toString(lamports) AS lamports, mint,
    toString(payout) AS payout, toString(rank) AS rank
  FROM treasury_payouts ${where} ORDER BY ${NEWEST} LIMIT {${scan}:UInt32}`;

/** Stored payouts at or before `{until:UInt32}` (unix seconds), newest first: a cursor page's. */
const UNTIL = "WHERE at <= toDateTime({until:UInt32}, 'UTC')";

/**
 * The first window of the newest `limit` payouts (newestPayouts, creatorPayoutItems) as a part of another read
 * (platformParts: one row, one column `x`, PayoutTuple[]), with its parameter; pass the answer on as `first`.
 * `until`: only those at or before `{until:UInt32}` (a cursor page's; the caller passes `until`).
 */
export function payoutWindowPart(limit: number, param: string, until = false): { sql: string; params: Record<string, number> } {
  return {
    sql: `SELECT groupArray((at, slot, signature, ix, inner, recipient, lamports, mint, payout, rank)) AS x FROM (${payoutWindow(param, until ? UNTIL : "")})`,
    params: { [param]: firstWindow(limit) },
  };
}

/** payoutWindowPart as a list of the feed's read (listsRead): its rows are PayoutTuples. */
export function payoutWindowList(limit: number, param: string, until = false): ListPart & { params: Record<string, number> } {
  return {
    columns: "toUnixTimestamp(at), slot, signature, ix, inner, recipient, lamports, mint, payout, rank",
    from: `FROM treasury_payouts ${until ? UNTIL : ""} ORDER BY ${NEWEST} LIMIT {${param}:UInt32}`,
    params: { [param]: firstWindow(limit) },
  };
}

/**
 * The newest classified payouts `accept` keeps, at least `limit` of them when there are (every
 * one of the seconds read), at or before `until` (unix seconds), newest first by the fact key. A payout is written again whenever its classification may change
 * (ClickHouse migration 0013), so the stored rows are read newest first without FINAL (`scan`
 * of them, from the end of the key) and each payout keeps its best row: the highest `rank`,
 * then the greatest mint, as the classification itself ranks agents. A payout's rows lie
 * side by side in that order, so the window's oldest second may be cut: it is left out unless
 * the window holds every row. The window widens eightfold until `limit` payouts are kept.
 * `first`: the first window, already read (payoutWindowPart).
 */
async function newestClassified(ch: ClickHouse, accept: (p: PayoutRow) => boolean, limit: number, until?: number, first?: PayoutTuple[]): Promise<PayoutRow[]> {
  for (let scan = firstWindow(limit); ; scan *= 8) {
    const rows: StoredPayout[] =
      first && scan === firstWindow(limit)
        ? first.map(([at, slot, signature, ix, inner, recipient, lamports, mint, payout, rank]) => ({ at, slot, signature, ix, inner, recipient, lamports, mint, payout, rank }))
        : await ch.query<StoredPayout>(payoutWindow("scan", until === undefined ? "" : UNTIL), { scan, until: until ?? 0 });
    const whole = rows.length < scan;
    const edge = whole ? -1 : Number(rows.at(-1)!.at);
    const best = new Map<string, StoredPayout>();
    for (const r of rows) {
      if (Number(r.at) === edge) continue;
      const key = `${r.slot}:${r.signature}:${r.ix}:${r.inner}`;
      const had = best.get(key);
      const rank = BigInt(r.rank);
      if (!had || rank > BigInt(had.rank) || (rank === BigInt(had.rank) && r.mint > had.mint)) best.set(key, r);
    }
    // the map keeps the read's order (newest first): a key's first row set its place
    const kept = [...best.values()].filter(accept).map(({ rank: _, ...p }) => p);
    if (kept.length >= limit || whole) return kept;
  }
}

/** The newest `limit` payouts (creators' only, or both kinds), leaving out those of `hidden` coins; `first`: payoutWindowPart's answer. */
export function newestPayouts(ch: ClickHouse, o: { limit: number; creatorsOnly: boolean; hidden: readonly string[]; first?: PayoutTuple[] }): Promise<PayoutRow[]> {
  const hidden = new Set(o.hidden);
  return newestClassified(ch, (p) => (!o.creatorsOnly || p.payout === "creator") && !hidden.has(p.mint), o.limit, undefined, o.first).then((rows) => rows.slice(0, o.limit));
}

/**
 * The treasury's sums (`treasury_sums`, ClickHouse migration 0013) of the rows `where` picks,
 * per kind, UTC day of the hour (1970-01-01 for all-time sums) and role, as a part of a read
 * (platformParts: one row, one column `x`): [kind, day, role, rows, lamports, usd (lamport-dollars), unpriced lamports, atoms][].
 */
export const TREASURY_SUMS = (where: string) => `
  SELECT groupArray((kind, day, role, n, l, u, un, a)) AS x FROM (
     SELECT kind, toDate(hour) AS day, role, sum(rows) AS n, sum(lamports) AS l, sum(usd) AS u, sum(unpriced) AS un, sum(atoms) AS a
     FROM treasury_sums WHERE ${where} GROUP BY kind, day, role)`;
export type SumRow = [string, string, string, string, string, number, string, string];

/** The transfers classified otherwise than when stored (payout_reclassified: few), as a part of a read (platformParts). */
export const MOVED = `
  SELECT groupArray((stored_as, payout, l, u, n)) AS x FROM (
     SELECT stored_as, payout, sum(lamports) AS l, sum(usd) AS u, sumIf(toUInt128(lamports), priced = 0) AS n FROM payout_reclassified FINAL
     GROUP BY stored_as, payout)`;
/** [classification when stored, classification now, lamports, usd, unpriced lamports] */
export type MovedRow = [string, string, string, number, string];
export type Paid = { lamports: bigint; usd: number; unpriced: bigint };

/**
 * Sums paid to agents' vaults and to creators, all time: the transfers as classified when
 * stored (`sums` rows of kind 'paid'), those classified otherwise since moved (USD in
 * lamport-dollars; `unpriced` lamports are valued at the first recorded price).
 */
export function paidByRole(sums: SumRow[], moved: MovedRow[]): Record<"vault" | "creator", Paid> {
  const out = { vault: { lamports: 0n, usd: 0, unpriced: 0n }, creator: { lamports: 0n, usd: 0, unpriced: 0n } };
  const add = (role: string, sign: 1n | -1n, lamports: string, usd: number, unpriced: string) => {
    if (role !== "vault" && role !== "creator") return;
    out[role].lamports += sign * BigInt(lamports);
    out[role].usd += Number(sign) * usd;
    out[role].unpriced += sign * BigInt(unpriced);
  };
  for (const [kind, , role, , l, u, n] of sums) if (kind === "paid") add(role, 1n, l, u, n);
  for (const [was, now, l, u, n] of moved) {
    add(was, -1n, l, u, n);
    add(now, 1n, l, u, n);
  }
  return out;
}

/** A feed row built from a treasury read (api/public/feed-service.ts ActivityRow). */
export type TreasuryFeedRow = { mint: string; at_ms: string; id: string; kind: string; text: string; body: null; data: string; links: string };

/** A feed item's id in JS, as feedId makes it in SQL (slots have fewer than 12 digits). */
export const itemId = (kind: string, slot: string, signature: string, ix: number, inner: number) => `${kind}:${slot.padStart(12, "0")}:${signature}:${ix}:${inner}`;

/** A list of the feed's read (listsRead) and how its tuples become feed rows. */
export type FeedPart<R = TreasuryFeedRow> = ListPart & { rows: (x: unknown[][]) => R[] };
/** A fact's key columns, and a treasury row made from a tuple starting with them (at in unix seconds). */
const KEY = "toUnixTimestamp(at), slot, signature, ix, inner";
type Keyed = [number, string, string, number, number, ...string[]];
const treasuryRow = (kind: string, mint: string, [at, slot, signature, ix, inner]: Keyed, data: Record<string, string>): TreasuryFeedRow => ({
  mint, at_ms: String(at * 1000), id: itemId(kind, slot, signature, ix, inner), kind, text: "", body: null, data: JSON.stringify(data), links: JSON.stringify({ signature }),
});
/**
 * The page's cursor in a part's WHERE: items of `kind` strictly older than ({pa} ms, {pi} id); `at` first, so the
 * key's order is used. The id's expression is planned only on a cursor's page.
 */
export const olderThanCursor = (kind: string, cursor: boolean) =>
  cursor ? `AND at <= toDateTime(intDiv({pa:Int64}, 1000), 'UTC') AND (toInt64(toUnixTimestamp(at)) * 1000, ${feedId(`'${kind}'`)}) < ({pa:Int64}, {pi:String})` : "";

/**
 * The feed's treasury parts, read with its other parts (parameters `mint`, `inner_limit` and the cursor's `pa`, `pi`),
 * each its newest `inner_limit` after the cursor in the key's order (the feed sorts them by id; ids differ from the
 * key's order only among the items of one transaction, which `inner_limit`'s margin covers):
 * a coin's `creator_payout`s, transfers to its creator's wallet while that wallet is named by
 * this coin (a wallet that is also some agent's vault is a vault payout, not shown), read by
 * its wallets; `platform_buyback`s, items of the platform token (`platformToken`, "" when
 * unset), so a coin's feed has them only if it is that coin and the feed across coins only if
 * it is not hidden. Creator payouts across coins: creatorPayoutItems.
 */
export function treasuryFeedParts(o: { mint: string | null; kinds: readonly string[]; hidden: readonly string[]; platformToken: string; cursor: boolean }): Record<string, FeedPart> {
  const parts: Record<string, FeedPart> = {};
  const mint = o.mint;
  if (mint && o.kinds.includes("creator_payout"))
    parts.creator_payout = {
      columns: `${KEY}, lamports, recipient`,
      from: `FROM treasury_transfers
        WHERE recipient IN (
          SELECT wallet FROM payout_wallets WHERE wallet IN (SELECT creator FROM agent_directory WHERE mint = {mint:String} AND creator != '')
          GROUP BY wallet HAVING tupleElement(max(best), 1) = 0 AND tupleElement(max(best), 3) = {mint:String})
          ${olderThanCursor("creator_payout", o.cursor)}
        ORDER BY ${NEWEST} LIMIT {inner_limit:UInt32}`,
      rows: (x) => (x as Keyed[]).map((t) => treasuryRow("creator_payout", mint, t, { lamports: t[5]!, creator: t[6]! })),
    };
  if (o.kinds.includes("platform_buyback") && (mint === null ? !o.hidden.includes(o.platformToken) : mint === o.platformToken))
    parts.platform_buyback = {
      columns: `${KEY}, lamports, atoms`,
      from: `FROM treasury_flows AS f WHERE f.kind = 'buyback' ${olderThanCursor("platform_buyback", o.cursor)} ORDER BY ${NEWEST} LIMIT {inner_limit:UInt32}`,
      rows: (x) => (x as Keyed[]).map((t) => treasuryRow("platform_buyback", o.platformToken, t, { lamports: t[5]!, atoms: t[6]! })),
    };
  return parts;
}

/** The second a cursor ([ms, id]) points into: the `until` of its page's payout windows. */
export const cursorSecond = (cursor: [number, string]) => Math.floor(cursor[0] / 1000);

/**
 * The feed's `creator_payout` items across coins but those of `hidden` coins, newest first by
 * (time, id), at most `limit` after the cursor ([ms, id]): classified payouts (newestClassified).
 * `first`: the first window, already read (payoutWindowPart(limit, …, cursor !== null) with `until` = cursorSecond).
 */
export async function creatorPayoutItems(ch: ClickHouse, o: { hidden: readonly string[]; limit: number; cursor: [number, string] | null; first?: PayoutTuple[] }): Promise<TreasuryFeedRow[]> {
  const hidden = new Set(o.hidden);
  const item = (p: PayoutRow) => treasuryRow("creator_payout", p.mint, [Number(p.at), p.slot, p.signature, p.ix, p.inner], { lamports: p.lamports, creator: p.recipient });
  const [pa, pi] = o.cursor ?? [Infinity, ""];
  const after = (p: PayoutRow) => {
    const ms = Number(p.at) * 1000;
    return ms < pa || (ms === pa && Buffer.compare(Buffer.from(item(p).id), Buffer.from(pi)) < 0);
  };
  // whole seconds are read, so the feed's own order (time, then id) cuts the page exactly
  const rows = await newestClassified(ch, (p) => p.payout === "creator" && !hidden.has(p.mint) && after(p), o.limit, o.cursor ? cursorSecond(o.cursor) : undefined, o.first);
  const items = rows.map(item).sort((a, b) => Number(b.at_ms) - Number(a.at_ms) || Buffer.compare(Buffer.from(b.id), Buffer.from(a.id)));
  return items.slice(0, o.limit);
}
