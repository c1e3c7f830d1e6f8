import { Session } from "chdb";
import { mkdirSync } from "node:fs";
import { type ClickHouse, type Params, type StreamFormat, type StreamOptions, parseJsonEachRowYielding, toJsonEachRow, toJsonCompactEachRow, SESSION_SETTINGS, PARQUET_STREAM_SETTINGS } from "./client";
import { stitchParquet } from "./parquet-stitch";

/**
 * chDB keeps one data directory per process, so a process has one engine (tests in one
 * process share it and use their own mints). A session runs one query at a time, so the
 * engine is reached through a few sessions: the sink's parallel inserts and Data API
 * reads then run side by side instead of queueing behind each other. Webhook ingest
 * measured 9,600-10,000 trades/s with four sessions against 7,700-8,600 with one
 * (bench/ingest-profile.ts, alternating runs).
 */
const SESSIONS = 4;

/**
 * Server settings of the embedded engine. The uncompressed block cache (off by default)
 * keeps the blocks that keyed reads (a coin's latest trades) decompress again and again:
 * with it a coin's trades page read went from 14-15 to 10 ms. Large scans bypass it, so
 * it fills with hot blocks only; its size counts in the process's memory.
 */
const ENGINE_ARGS = ["--uncompressed_cache_size=268435456"];
let open: { path: string; sessions: Session[]; busy: number[]; idleStreamers: Session[] } | null = null;

export async function createChdb(path: string): Promise<ClickHouse> {
  if (open && open.path !== path) throw new Error(`chDB already open at ${open.path}; one data directory per process`);
  if (!open) {
    mkdirSync(path, { recursive: true });
    const sessions = Array.from({ length: SESSIONS }, () => {
      const session = new Session(path, { connectionArgs: ENGINE_ARGS });
      for (const [k, v] of Object.entries(SESSION_SETTINGS)) session.query(`SET ${k} = ${JSON.stringify(v).replaceAll('"', "'")}`);
      return session;
    });
    open = { path, sessions, busy: sessions.map(() => 0), idleStreamers: [] };
  }
  const engine = open;
  /** runs `work` on the session with the fewest queries in flight */
  async function onSession<T>(work: (session: Session) => Promise<T>): Promise<T> {
    let i = 0;
    for (let k = 1; k < engine.sessions.length; k++) if (engine.busy[k]! < engine.busy[i]!) i = k;
    engine.busy[i]!++;
    try {
      return await work(engine.sessions[i]!);
    } finally {
      engine.busy[i]!--;
    }
  }
  /**
   * A streamed read holds its session until it ends (one stream per session), so streams
   * get sessions of their own, never one of the query pool's: an export of minutes must
   * not stall the reads queued behind it. Sessions are kept for the next stream.
   */
  function streamSession(): Session {
    const session = engine.idleStreamers.pop();
    if (session) return session;
    const fresh = new Session(engine.path, { connectionArgs: ENGINE_ARGS });
    for (const [k, v] of Object.entries(SESSION_SETTINGS)) fresh.query(`SET ${k} = ${JSON.stringify(v).replaceAll('"', "'")}`);
    return fresh;
  }
  async function* streamBlocks(sql: string, params: Params, format: StreamFormat, opts: StreamOptions): AsyncGenerator<Uint8Array> {
    const settings: Record<string, string | number> = { ...(format === "Parquet" ? PARQUET_STREAM_SETTINGS : {}), ...opts.settings };
    const clause = Object.keys(settings).length ? ` SETTINGS ${Object.entries(settings).map(([k, v]) => `${k} = ${typeof v === "number" ? v : `'${v.replaceAll("'", "")}'`}`).join(", ")}` : "";
    const session = streamSession();
    // the stream is not parameter-chained like queryBindAsync (chdb serialises those process-wide), so a long export blocks no other read
    const stream = session.queryStreamBind(`${sql}${clause}`, params, { format, signal: opts.signal });
    try {
      for await (const chunk of stream) yield chunk.raw();
    } finally {
      stream.cancel();
      engine.idleStreamers.push(session);
    }
  }
  let closed = false;
  return {
    kind: "chdb",
    async query<T>(sql: string, params: Params = {}) {
      // every query through queryBindAsync, which chdb runs one at a time across the process (it guards the engine
      // against a race there). Running queries without parameters beside them (queryAsync) was tried and reverted: no
      // measurable gain, and an unexplained full-suite failure while it was in (bench/README.md, 2026-11-27 05:50)
      const r = await onSession((session) => session.queryBindAsync(sql, params, { format: "JSONEachRow" }));
      return parseJsonEachRowYielding<T>(r.text());
    },
    async command(sql: string, params: Params = {}) {
      await onSession((session) => session.queryBindAsync(sql, params, { format: "Null" }));
    },
    async insert(table, rows) {
      if (rows.length === 0) return;
      // rows of one shape go as arrays of values (cheaper to build and to parse); others as objects
      const compact = toJsonCompactEachRow(rows);
      const insert = compact
        ? { table, values: Buffer.from(compact.text), format: "JSONCompactEachRow" as const, columns: compact.columns }
        : { table, values: Buffer.from(toJsonEachRow(rows)), format: "JSONEachRow" as const };
      await onSession((session) => session.insert(insert));
    },
    stream(sql: string, params: Params, format: StreamFormat, opts: StreamOptions = {}) {
      // each streamed block is a whole document of its format: rows for CSV and JSONEachRow, a Parquet file per block, joined here
      const blocks = streamBlocks(sql, params, format, opts);
      return format === "Parquet" ? stitchParquet(blocks) : blocks;
    },
    freeChunk(chunk: Uint8Array) {
      // each chunk owns its ArrayBuffer alone: chdb's binding copies every block into a new
      // Buffer, and the stitcher yields fresh buffers or a piece's data (nothing else of it kept)
      (chunk.buffer as ArrayBuffer).transfer(0);
    },
    async ping() {
      try {
        await onSession((session) => session.queryAsync("SELECT 1", { format: "Null" }));
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
