import { createClient } from "@clickhouse/client";
import { type ClickHouse, type Params, SESSION_SETTINGS } from "./client";

const TRANSIENT = /ECONNRESET|ECONNREFUSED|socket hang up|timeout|TOO_MANY_SIMULTANEOUS_QUERIES|Timeout/i;

async function withRetry<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !TRANSIENT.test(String((err as Error)?.message ?? err))) throw err;
      await Bun.sleep(Math.min(2000, 50 * 2 ** i));
    }
  }
}

/** A ClickHouse server over its HTTP interface. Transient errors are retried with backoff. */
export async function createClickhouseServer(url: string): Promise<ClickHouse> {
  const client = createClient({ url, clickhouse_settings: { ...SESSION_SETTINGS } as never, request_timeout: 30_000 });
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
      await withRetry(() => client.insert({ table, values, format: "JSONEachRow" }));
    },
    async ping() {
      return (await client.ping()).success;
    },
    async close() {
      await client.close();
    },
  };
}
