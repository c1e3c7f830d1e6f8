/**
 * The ClickHouse the rest of the code sees: chDB in-process by default, a server over HTTP
 * when CLICKHOUSE_URL is set. Same SQL on both; parameters are typed placeholders
 * (`{mint:String}`), never string-built, except the lists `stringListLiteral` writes for the
 * few queries that must not wait behind others (see there).
 */
export type Params = Record<string, unknown>;

export interface ClickHouse {
  readonly kind: "chdb" | "server";
  /** runs a SELECT and returns its rows (64-bit integers arrive as strings) */
  query<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  /** runs a statement that returns nothing (DDL, INSERT ... SELECT) */
  command(sql: string, params?: Params): Promise<void>;
  /** inserts rows (bigint values are sent exactly) in one INSERT */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  /**
   * Streams a SELECT's output in `format` as bytes, piece by piece, never the whole result
   * in memory. CSV comes without a header (the caller writes its own); Parquet is one
   * whole file. Leaving the loop early (return, throw) or `signal` aborting stops the query.
   */
  stream(sql: string, params: Params, format: StreamFormat, opts?: StreamOptions): AsyncIterable<Uint8Array>;
  /**
   * Frees a chunk of `stream` as soon as the caller is done with it (its bytes sent or
   * copied; the chunk is empty afterwards) instead of whenever the garbage collector gets
   * to it: an export passes gigabytes through in chunks of a few MB, and the collector lets
   * 100 MiB and more of them pile up. Only where each chunk owns its memory alone (chDB).
   */
  freeChunk?(chunk: Uint8Array): void;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export type StreamFormat = "CSV" | "JSONEachRow" | "Parquet";
export type StreamOptions = { signal?: AbortSignal; settings?: Record<string, string | number> };

/**
 * A list of strings as a ClickHouse array literal, every quote and backslash escaped. chDB's
 * Node binding runs queries with parameters one at a time across the whole process (its guard
 * against a race in the engine), while queries without parameters run side by side. So the
 * sink's ledger lookup, on the path of every webhook call, and the holder counts, which read a
 * coin's whole history, put their lists in the text: the one never waits behind the reads, the
 * other never holds them up.
 */
export function stringListLiteral(values: readonly string[]): string {
  return `[${values.map((v) => `'${v.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`).join(",")}]`;
}

/**
 * Parquet settings of streamed exports: no page index and no bloom filters, so a file's
 * only offsets are in its footer (chDB's stream gives a Parquet file per block, and
 * parquet-stitch.ts joins them by rewriting the footer alone).
 */
export const PARQUET_STREAM_SETTINGS = { output_format_parquet_write_page_index: 0, output_format_parquet_write_bloom_filter: 0 } as const;

/**
 * JSONEachRow lines with bigint written as quoted decimal (ClickHouse parses them
 * exactly). Rows are flat, so bigints are converted in place of a replacer, which
 * would slow JSON.stringify down on every value.
 */
export function toJsonEachRow(rows: readonly Record<string, unknown>[]): string {
  const lines = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let flat: Record<string, unknown> = row;
    for (const k in row) {
      if (typeof row[k] === "bigint") {
        if (flat === row) flat = { ...row };
        flat[k] = (row[k] as bigint).toString();
      }
    }
    lines[i] = JSON.stringify(flat);
  }
  return lines.join("\n") + "\n";
}

/**
 * Rows of one shape (the same keys in the same order, every value defined: what the sink's
 * row builders make) as JSONCompactEachRow lines (one JSON array of values per row, bigint
 * as quoted decimal) and their column names; null when the rows differ in shape (the
 * caller sends JSONEachRow, where a missing key takes the column's default). chDB parses
 * arrays without key names in about two thirds of the CPU: 12 against 18 ms for a sink
 * write's 2,660 trade rows, and the text is built faster too (bench/README.md, 2026-11-27
 * ingest CPU).
 */
export function toJsonCompactEachRow(rows: readonly Record<string, unknown>[]): { columns: string[]; text: string } | null {
  if (rows.length === 0) return null;
  const columns = Object.keys(rows[0]!);
  const width = columns.length;
  const lines = new Array<string>(rows.length);
  const values = new Array<unknown>(width);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let j = 0;
    for (const k in row) {
      const v = row[k];
      if (j >= width || k !== columns[j] || v === undefined) return null;
      values[j++] = typeof v === "bigint" ? v.toString() : v;
    }
    if (j !== width) return null;
    lines[i] = JSON.stringify(values);
  }
  return { columns, text: lines.join("\n") + "\n" };
}

/** JSONEachRow output → rows, with one JSON.parse (values never hold a raw newline). */
export function parseJsonEachRow<T>(text: string): T[] {
  const body = text.trimEnd();
  return body ? (JSON.parse("[" + body.replaceAll("\n", ",") + "]") as T[]) : [];
}

/**
 * Like parseJsonEachRow, but a large result is parsed in slices with a yield between
 * them, so one big read (the market board's 10k rows) never holds the event loop
 * while requests wait.
 */
export async function parseJsonEachRowYielding<T>(text: string, sliceLines = 500): Promise<T[]> {
  if (text.length < 128 * 1024) return parseJsonEachRow<T>(text);
  const lines = text.trimEnd().split("\n");
  const out: T[] = [];
  for (let i = 0; i < lines.length; i += sliceLines) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    for (const row of JSON.parse("[" + lines.slice(i, i + sliceLines).join(",") + "]") as T[]) out.push(row);
  }
  return out;
}

/** Settings both engines get, so results look the same whichever runs them. */
export const SESSION_SETTINGS = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_denormals: 0,
  date_time_output_format: "iso",
  join_use_nulls: 0,
  // a trades insert feeds several views; let them run side by side
  parallel_view_processing: 1,
  // keyed reads reuse decompressed blocks (the embedded engine sizes the cache; see chdb.ts)
  use_uncompressed_cache: 1,
  // the sink's inserts are a few MB at most: parsing them on one thread skips the hand-offs
  // (webhook ingest 13,600 and 12,500 against 12,000 and 12,000 trades/s, alternating runs)
  input_format_parallel_parsing: 0,
} as const;
