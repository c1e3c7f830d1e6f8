import { Session } from "chdb";
import { mkdirSync } from "node:fs";
import { type ClickHouse, type Params, parseJsonEachRowYielding, toJsonEachRow, SESSION_SETTINGS } from "./client";

/**
 * chDB keeps one data directory per process, so a process has one session; tests in one
 * process share it (and use their own mints).
 */
let open: { path: string; session: Session } | null = null;

export async function createChdb(path: string): Promise<ClickHouse> {
  if (open && open.path !== path) throw new Error(`chDB already open at ${open.path}; one data directory per process`);
  if (!open) {
    mkdirSync(path, { recursive: true });
    const session = new Session(path);
    for (const [k, v] of Object.entries(SESSION_SETTINGS)) session.query(`SET ${k} = ${JSON.stringify(v).replaceAll('"', "'")}`);
    open = { path, session };
  }
  const session = open.session;
  let closed = false;
  return {
    kind: "chdb",
    async query<T>(sql: string, params: Params = {}) {
      const r = await session.queryBindAsync(sql, params, { format: "JSONEachRow" });
      return parseJsonEachRowYielding<T>(r.text());
    },
    async command(sql: string, params: Params = {}) {
      await session.queryBindAsync(sql, params, { format: "Null" });
    },
    async insert(table, rows) {
      if (rows.length === 0) return;
      await session.insert({ table, values: Buffer.from(toJsonEachRow(rows)), format: "JSONEachRow" });
    },
    async ping() {
      try {
        await session.queryAsync("SELECT 1", { format: "Null" });
        return !closed;
      } catch {
        return false;
      }
    },
    async close() {
      // the process-wide session stays open for other users in this process (tests); the OS frees it at exit
      closed = true;
    },
  };
}
