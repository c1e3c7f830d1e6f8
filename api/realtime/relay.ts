/**
 * The stdout relay: one dedicated Postgres connection per process LISTENs on `daemon_stdout`
 * (sql/postgres/0012: a trigger announces every new line at commit as {"id","mint"}), so lines
 * any process writes reach this process's sockets. A notification for an agent nobody here
 * watches is dropped without a read; the others are read by id in batches, in order, and handed
 * to `deliver` once each.
 *
 * When the connection drops, NOTIFYs sent meanwhile are lost: it reconnects with backoff, and
 * once listening again reads what each watched agent wrote since the last line delivered (and,
 * for lines whose transaction committed late with a lower id, any line created in the 30 s before
 * the drop that was not delivered). A line is never delivered twice (recent ids are kept per agent).
 */
import postgres from "postgres";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import type { StdoutRow } from "../daemons/store";

export const STDOUT_CHANNEL = "daemon_stdout";
/** lines read back per agent after a reconnect; a longer gap leaves the older ones to GET …/stdout */
const CATCH_UP_MAX_LINES = 1000;
const RECENT_IDS_PER_AGENT = 512;

export type RelayState = "idle" | "connecting" | "up" | "down" | "stopped";

export type StdoutRelay = {
  /** resolves once this process listens (connecting on first use); rejects after `timeoutMs` */
  ready(timeoutMs: number): Promise<void>;
  /**
   * Delivers the lines of `mint` announced from now on; `afterId` (its newest line when
   * subscribed) is where a read-back after a reconnect starts (raised, never lowered, by a later call).
   */
  watch(mint: string, afterId?: bigint): void;
  unwatch(mint: string): void;
  state(): RelayState;
  /** how many lines were delivered after a reconnect by reading back (for tests and logs) */
  caughtUp(): number;
  stop(): Promise<void>;
};

export type RelayOptions = {
  url: string;
  sql: Sql;
  log: Logger;
  deliver: (row: StdoutRow) => void;
  /** waits before reconnect attempt `attempt` (1, 2, …); default exponential backoff from 250 ms to 10 s with jitter */
  reconnectDelay?: (attempt: number) => Promise<void>;
  onState?: (state: RelayState) => void;
};

const backoff = (attempt: number) => Bun.sleep(Math.min(10_000, 250 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2));

type Watermark = { last: bigint; recent: Set<string> };

const LINE_COLUMNS = (sql: Sql) => sql`s.id, s.mint, s.kind, s.body, s.meta, s.created_at`;

export function createStdoutRelay(o: RelayOptions): StdoutRelay {
  const log = o.log.child({ stage: "realtime-relay" });
  const watched = new Map<string, Watermark>();
  let current: RelayState = "idle";
  let up: { promise: Promise<void>; resolve: () => void } | null = null;
  let downAt: Date | null = null;
  let caughtUp = 0;
  let work: Promise<void> = Promise.resolve(); // reads and deliveries run one after another: lines go out in order
  let pending: bigint[] = [];

  const setState = (s: RelayState) => {
    current = s;
    o.onState?.(s);
  };

  const listener = postgres(o.url, {
    max: 1,
    idle_timeout: null as never,
    max_lifetime: null as never,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: "acp-realtime-listen" },
    onnotify: (channel: string, payload: string) => channel === STDOUT_CHANNEL && announced(payload),
    onclose: () => dropped(),
  } as postgres.Options<{}>);

  function announced(payload: string) {
    let note: { id?: unknown; mint?: unknown };
    try {
      note = JSON.parse(payload);
    } catch {
      return;
    }
    if (typeof note.id !== "string" || typeof note.mint !== "string") return;
    const w = watched.get(note.mint);
    if (!w || w.recent.has(note.id)) return;
    const first = pending.length === 0;
    pending.push(BigInt(note.id));
    if (first) enqueue(readAnnounced);
  }

  function enqueue(task: () => Promise<void>) {
    work = work.then(task).catch((err) => log.warn("realtime relay read failed", { err: (err as Error).message }));
  }

  async function readAnnounced(attempt = 1): Promise<void> {
    const ids = pending;
    pending = [];
    if (!ids.length) return;
    try {
      const rows = await o.sql<StdoutRow[]>`
        SELECT ${LINE_COLUMNS(o.sql)} FROM daemon_stdout s JOIN agents a ON a.mint = s.mint AND NOT a.hidden
        WHERE s.id = ANY(${ids.map(String)}::bigint[]) ORDER BY s.id`;
      rows.forEach(hand);
    } catch (err) {
      if (attempt >= 5) throw err;
      pending = [...ids, ...pending];
      await Bun.sleep(200 * attempt);
      return readAnnounced(attempt + 1);
    }
  }

  function hand(row: StdoutRow) {
    const w = watched.get(row.mint);
    const id = row.id.toString();
    if (!w || w.recent.has(id)) return;
    w.recent.add(id);
    if (w.recent.size > RECENT_IDS_PER_AGENT) w.recent.delete(w.recent.values().next().value!);
    if (row.id > w.last) w.last = row.id;
    o.deliver(row);
  }

  async function catchUp(since: Date) {
    if (!watched.size) return;
    const mints = [...watched.keys()];
    const lasts = mints.map((m) => watched.get(m)!.last.toString());
    const rows = await o.sql<StdoutRow[]>`
      SELECT l.* FROM unnest(${mints}::text[], ${lasts}::bigint[]) AS w(mint, last)
      JOIN agents a ON a.mint = w.mint AND NOT a.hidden
      CROSS JOIN LATERAL (
        SELECT ${LINE_COLUMNS(o.sql)} FROM daemon_stdout s
        WHERE s.mint = w.mint AND (s.id > w.last OR s.created_at > ${since}::timestamptz - interval '30 seconds')
        ORDER BY s.id LIMIT ${CATCH_UP_MAX_LINES}) l
      ORDER BY l.id`;
    const before = rows.filter((r) => !watched.get(r.mint)?.recent.has(r.id.toString())).length;
    rows.forEach(hand);
    caughtUp += before;
    if (before) log.info("realtime relay caught up after a reconnect", { lines: before, agents: mints.length });
  }

  async function connect() {
    const reconnecting = current !== "idle";
    setState(reconnecting ? "down" : "connecting");
    for (let attempt = 1; ; attempt++) {
      // a reconnect waits first: a Postgres that just restarted is not hammered by every replica at once
      if (reconnecting || attempt > 1) await (o.reconnectDelay ?? backoff)(attempt);
      if ((current as RelayState) === "stopped") return;
      try {
        await listener`LISTEN daemon_stdout`;
        break;
      } catch (err) {
        log.warn("realtime relay cannot listen; retrying", { attempt, err: (err as Error).message });
      }
    }
    if ((current as RelayState) === "stopped") return;
    const since = downAt;
    downAt = null;
    setState("up");
    if (since) enqueue(() => catchUp(since));
    up?.resolve();
  }

  function dropped() {
    if (current !== "up") return; // a failed attempt: connect() is retrying already
    downAt = new Date();
    log.warn("realtime relay lost its Postgres connection; reconnecting");
    setState("down");
    void connect();
  }

  return {
    ready(timeoutMs) {
      if (current === "up") return Promise.resolve();
      if (!up) {
        let resolve!: () => void;
        up = { promise: new Promise<void>((r) => (resolve = r)), resolve };
        up.resolve = resolve;
        if (current === "idle") void connect();
      }
      const waiting = up.promise;
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error("the realtime relay is not listening")), timeoutMs);
        waiting.then(() => (clearTimeout(t), resolve()));
      });
    },
    watch(mint, afterId = 0n) {
      const w = watched.get(mint);
      if (!w) watched.set(mint, { last: afterId, recent: new Set() });
      else if (afterId > w.last) w.last = afterId;
    },
    unwatch(mint) {
      watched.delete(mint);
    },
    state: () => current,
    caughtUp: () => caughtUp,
    async stop() {
      setState("stopped");
      await listener.end({ timeout: 1 }).catch(() => {});
      await work;
    },
  };
}
