import { createClient, ClickHouseLogLevel } from "@clickhouse/client";
import { retry } from "../retry";
import { type ClickHouse, type Params, type StreamFormat, type StreamOptions, SESSION_SETTINGS, PARQUET_STREAM_SETTINGS } from "./client";

const TRANSIENT = /ECONNRESET|ECONNREFUSED|socket hang up|timeout|TOO_MANY_SIMULTANEOUS_QUERIES/i;
// An INSERT may have been committed when the connection broke, and the views would count a
// resent one twice: inserts are retried only on errors that prove they never ran. The sink's
// own redelivery then re-checks what is stored.
const NEVER_RAN = /ECONNREFUSED|TOO_MANY_SIMULTANEOUS_QUERIES/;

function withRetry<T>(fn: () => Promise<T>, retryable = TRANSIENT, attempts = 5): Promise<T> {
  return retry(() => fn(), {
    retries: attempts - 1,
    minDelayMs: 100,
    maxDelayMs: 2000,
    // @clickhouse/client keeps the error name (TOO_MANY_SIMULTANEOUS_QUERIES) in err.type, not in the message
    shouldRetry: (err) => {
      const e = err as { message?: string; type?: string };
      return retryable.test(`${e?.message ?? err} ${e?.type ?? ""}`);
    },
  });
}

/** A ClickHouse server over its HTTP interface. Transient errors are retried with backoff. */
export async function createClickhouseServer(url: string): Promise<ClickHouse> {
  const client = createClient({
    url,
    clickhouse_settings: { ...SESSION_SETTINGS } as never,
    request_timeout: 30_000,
    // failures surface as rejected promises and are logged by the caller with context
    log: { level: ClickHouseLogLevel.OFF },
  });
  return {
    kind: "server",
    async query<T>(sql: string, params: Params = {}) {
      return withRetry(async () => (await client.query({ query: sql, query_params: params, format: "JSONEachRow" })).json<T>());
    },
    async command(sql: string, params: Params = {}) {
      await withRetry(() => client.command({ query: sql, query_params: params }));
    },
    async insert(table, rows) {
      if (rows.length === 0) return;
      const values = rows.map((r) => JSON.parse(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v))));
      await withRetry(() => client.insert({ table, values, format: "JSONEachRow" }), NEVER_RAN);
    },
    async *stream(sql: string, params: Params, format: StreamFormat, opts: StreamOptions = {}) {
      // the server writes the format itself, one document (one Parquet file) for the whole result
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      opts.signal?.addEventListener("abort", onAbort);
      try {
        const { stream } = await client.exec({
          query: `${sql} FORMAT ${format}`,
          query_params: params,
          clickhouse_settings: { ...(format === "Parquet" ? PARQUET_STREAM_SETTINGS : {}), ...opts.settings } as never,
          abort_signal: controller.signal,
        });
        try {
          for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
        } finally {
          stream.destroy();
        }
      } finally {
        // leaving early aborts the HTTP request, and a ClickHouse server cancels a query whose client went away
        controller.abort();
        opts.signal?.removeEventListener("abort", onAbort);
      }
    },
    async ping() {
      return (await client.ping()).success;
    },
    async close() {
      await client.close();
    },
  };
}
