/**
 * The export's one SELECT: every trade of the range in chain order, amounts as exact
 * decimal strings made by the engine, so the service only passes bytes through.
 */
import type { Params } from "../../infra/clickhouse";
import type { QuoteInfo } from "../../ingest/contract/configs";

/** The export's columns, in order (api/README.md documents each). */
export const EXPORT_COLUMNS = [
  "signature", "slot", "ix", "inner", "time", "mint", "pool", "venue", "side", "trader", "amount_sol", "amount_token", "price_sol",
  "trading_fee", "protocol_fee", "referral_fee", "quote_mint", "quote_symbol", "quote_amount", "fee_mint",
] as const;

/** What one export reads: the coin (null = every public coin), the slots, optional times (ms; `toMs` excluded). */
export type ExportRange = { mint: string | null; hidden: string[]; fromSlot: bigint; untilSlot: bigint; fromMs: number | null; toMs: number | null };

/**
 * `atoms` (UInt64) in whole units of `decimals` digits, as formatUnits (market-math.ts)
 * writes them: no trailing zeros, no point for a whole number (1500000000, 9 → "1.5").
 */
const units = (atoms: string, decimals: string) =>
  `concat(toString(intDiv(${atoms}, intExp10(${decimals}))), if(${atoms} % intExp10(${decimals}) = 0, '', concat('.', replaceRegexpOne(leftPad(toString(${atoms} % intExp10(${decimals})), ${decimals}, '0'), '0+$', ''))))`;

/**
 * The SELECT of one export. A coin's trades come from `trades` (keyed by coin, then chain
 * order), every coin's from `trades_by_slot` (keyed in chain order): either way the rows
 * are read in key order and stream without a sort. `stocks` are the platform's stock
 * quotes: a paired coin's amounts are in its stock's units, as in the Data API's trades.
 */
export function exportQuery(range: ExportRange, stocks: QuoteInfo[]): { sql: string; params: Params } {
  const where = [
    range.mint ? "t.mint = {mint:String}" : "t.mint NOT IN {hidden:Array(String)}",
    "t.slot >= {from_slot:UInt64}",
    "t.slot <= {until_slot:UInt64}",
    ...(range.fromMs !== null ? ["toUnixTimestamp(t.at) >= {from_s:Int64}"] : []),
    ...(range.toMs !== null ? ["toUnixTimestamp(t.at) < {to_s:Int64}"] : []),
  ];
  const sql = `
    WITH indexOf({stock_mints:Array(String)}, t.quote_mint) AS stock, if(stock = 0, 9, {stock_decimals:Array(UInt8)}[stock]) AS quote_decimals
    SELECT t.signature AS signature, t.slot AS slot, t.ix AS ix, t.inner AS inner, formatDateTime(t.at, '%Y-%m-%dT%H:%i:%S.000Z') AS time,
      t.mint AS mint, t.pool AS pool, t.venue AS venue, t.side AS side, t.trader AS trader,
      ${units("t.amount_quote", "quote_decimals")} AS amount_sol, ${units("t.amount_base", "t.base_decimals")} AS amount_token,
      t.price_sol AS price_sol, toString(t.trading_fee) AS trading_fee, toString(t.protocol_fee) AS protocol_fee, toString(t.referral_fee) AS referral_fee,
      if(stock = 0, NULL, t.quote_mint) AS quote_mint, if(stock = 0, NULL, {stock_symbols:Array(String)}[stock]) AS quote_symbol,
      if(stock = 0, NULL, toString(t.amount_quote)) AS quote_amount, if(t.fee_in_base = 1, t.mint, t.quote_mint) AS fee_mint
    FROM ${range.mint ? "trades" : "trades_by_slot"} AS t
    WHERE ${where.join(" AND ")}
    ORDER BY t.slot, t.signature, t.ix, t.inner`;
  return {
    sql,
    params: {
      mint: range.mint ?? "",
      hidden: range.hidden,
      from_slot: range.fromSlot.toString(),
      until_slot: range.untilSlot.toString(),
      from_s: range.fromMs === null ? 0 : Math.ceil(range.fromMs / 1000),
      to_s: range.toMs === null ? 0 : Math.ceil(range.toMs / 1000),
      stock_mints: stocks.map((s) => s.mint),
      stock_decimals: stocks.map((s) => s.decimals),
      stock_symbols: stocks.map((s) => s.symbol),
    },
  };
}
