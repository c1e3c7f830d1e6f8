/**
 * A trade export: the range fixed when it starts, then the engine's own output streamed.
 *
 * The upper bound is a slot chosen at the start, the highest slot stored then (or `to`
 * when lower): the query reads a snapshot of the table anyway, and the bound says which
 * one, so the next export starts at that slot + 1 and no trade appears twice or goes
 * missing between the two, whatever ingest writes meanwhile.
 */
import type { ClickHouse, StreamFormat } from "../../infra/clickhouse";
import type { ConfigRegistry, QuoteInfo } from "../../ingest/contract/configs";
import { hiddenMints, publicAgentSummary } from "../public/feed-service";
import type { PublicDeps } from "../public/agents-service";
import { EXPORT_COLUMNS, exportQuery, type ExportRange } from "./sql";
import { rangeEndLabel, type ExportFormat, type ExportQuery } from "./model";

export type ExportDeps = Pick<PublicDeps, "ch" | "sql" | "configs">;

export const ENGINE_FORMAT: Record<ExportFormat, StreamFormat> = { csv: "CSV", ndjson: "JSONEachRow", parquet: "Parquet" };
export const CONTENT_TYPE: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
  parquet: "application/vnd.apache.parquet",
};
/**
 * Settings of an export's query. One thread: the rows are read in key order and written
 * by one format writer anyway, and each more thread reads ahead with buffers of its own
 * (1M rows of NDJSON from chDB: 0-20 MiB RSS growth with one thread against 50-130 MiB
 * with the default, and no slower on two cores). Reading in key order merges one stream
 * per part of the table; without `read_in_order_use_buffering` each of them buffers
 * blocks ahead of the merge (10M trades in 5 parts: the engine's memory grew by 180 MiB
 * with it, 80 MiB without, and streamed as fast). A scan of the whole range would only
 * churn the uncompressed block cache the keyed reads keep hot, so exports skip it. Per
 * format: numbers as JSON numbers in NDJSON, an empty field for null in CSV.
 */
const ONE_READER = { max_threads: 1, read_in_order_use_buffering: 0, use_uncompressed_cache: 0 };
export const EXPORT_SETTINGS: Record<ExportFormat, Record<string, string | number>> = {
  csv: { ...ONE_READER, format_csv_null_representation: "" },
  ndjson: { ...ONE_READER, output_format_json_quote_64bit_integers: 0 },
  parquet: ONE_READER,
};

/** `free`: gives a chunk of `body` back once its bytes are sent (ClickHouse.freeChunk; the header line is a fresh buffer too). */
export type ExportStart = { untilSlot: bigint; fileName: string; contentType: string; body: AsyncIterable<Uint8Array>; free(chunk: Uint8Array): void };

/**
 * The highest slot stored now: the bound of an export starting now (0 with no trades).
 * Ordered by the column itself, which the table is keyed by, so the engine reads each
 * part's last rows backwards (milliseconds). (An alias `slot` for the text would order
 * by the text instead: a sort of every slot stored, 0.4-0.6 s at 10M trades, and "99"
 * above "100".)
 */
export async function highestStoredSlot(ch: ClickHouse): Promise<bigint> {
  const [row] = await ch.query<{ slot: string }>("SELECT toString(t.slot) AS slot FROM trades_by_slot AS t ORDER BY t.slot DESC LIMIT 1");
  return row ? BigInt(row.slot) : 0n;
}

/** The stock quotes of the platform's paired configs (one entry per stock mint). */
export function stockQuotes(configs: ConfigRegistry): QuoteInfo[] {
  const byMint = new Map<string, QuoteInfo>();
  for (const c of configs.all) if (c.quote.kind === "stock" && !byMint.has(c.quote.mint)) byMint.set(c.quote.mint, c.quote);
  return [...byMint.values()];
}

/** Fixes the range (404 for an unknown or hidden coin) and starts the stream; nothing is read until the body is. */
export async function startExport(deps: ExportDeps, q: ExportQuery, signal?: AbortSignal): Promise<ExportStart> {
  const [hidden, stored] = await Promise.all([
    q.mint ? publicAgentSummary(deps as PublicDeps, q.mint).then(() => [] as string[]) : hiddenMints(deps as PublicDeps),
    highestStoredSlot(deps.ch),
  ]);
  const untilSlot = q.to && "slot" in q.to && q.to.slot < stored ? q.to.slot : stored;
  const range: ExportRange = {
    mint: q.mint,
    hidden,
    fromSlot: q.from && "slot" in q.from ? q.from.slot : 0n,
    untilSlot,
    fromMs: q.from && "ms" in q.from ? q.from.ms : null,
    toMs: q.to && "ms" in q.to ? q.to.ms : null,
  };
  const { sql, params } = exportQuery(range, stockQuotes(deps.configs));
  const rows = deps.ch.stream(sql, params, ENGINE_FORMAT[q.format], { signal, settings: EXPORT_SETTINGS[q.format] });
  const from = q.from ? rangeEndLabel(q.from) : "0";
  return {
    untilSlot,
    fileName: `trades_${q.mint ?? "all"}_${from}-${untilSlot}.${q.format}`,
    contentType: CONTENT_TYPE[q.format],
    body: q.format === "csv" ? withHeader(rows) : rows,
    free: deps.ch.freeChunk ? (chunk) => deps.ch.freeChunk!(chunk) : () => {},
  };
}

/** CSV's header line: the engine's CSV pieces carry none (each streamed block would repeat it). */
export const CSV_HEADER = EXPORT_COLUMNS.map((c) => `"${c}"`).join(",") + "\n";

async function* withHeader(rows: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(CSV_HEADER);
  yield* rows;
}

