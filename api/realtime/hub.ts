/**
 * Who listens to what on this process: sockets, their topics, and the fan-out of each event to
 * the sockets of its topic (the event serialized once). Stdout lines come from the relay
 * (relay.ts: any process's writes); the SOL price from this process's own price service, read
 * every `priceEveryMs` while someone listens and sent when it changed.
 */
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import type { SolPrice, SolPriceService } from "../../infra/sol-price";
import type { StdoutRow } from "../daemons/store";
import { stdoutView } from "../daemons/service";
import type { StdoutRelay } from "./relay";
import { PRICE_TOPIC, answerFrame, daemonTopic, errorFrame, eventFrame, mintOfTopic, pongFrame, readFrame, type Command, type Topic } from "./protocol";

/** The socket as the hub sees it (Bun's ServerWebSocket has these). */
export type Peer = { send(text: string): number; close(code?: number, reason?: string): void };

export type HubLimits = {
  /** topics one socket may hold */
  maxTopicsPerSocket: number;
  /** open sockets per client address (api/public/client-address.ts) */
  maxSocketsPerClient: number;
  /** frames a socket may send at once, then `framesPerSecond`; beyond, it is closed (1008) */
  frameBurst: number;
  framesPerSecond: number;
};

export const DEFAULT_FRAME_BUDGET = { frameBurst: 40, framesPerSecond: 10 };

export type HubDeps = { sql: Sql; relay: StdoutRelay; price: SolPriceService; log: Logger; limits: HubLimits; priceEveryMs?: number };

export type Socket = {
  peer: Peer;
  client: string | null;
  topics: Set<Topic>;
  /** frame budget (token bucket) */
  tokens: number;
  refilledAt: number;
  /** frames are handled one after another (a subscribe reads Postgres; an unsubscribe sent after it must not overtake it) */
  queue: Promise<void>;
  closed: boolean;
};

export type Hub = ReturnType<typeof createHub>;

export function createHub(deps: HubDeps) {
  const { limits } = deps;
  const subscribers = new Map<Topic, Set<Socket>>();
  const perClient = new Map<string, number>();
  const open = new Set<Socket>();
  let lastPrice: SolPrice | null = null;
  let priceTimer: ReturnType<typeof setInterval> | null = null;

  const send = (s: Socket, frame: unknown) => {
    if (!s.closed) s.peer.send(JSON.stringify(frame));
  };

  function broadcast(topic: Topic, text: string) {
    const set = subscribers.get(topic);
    if (!set) return;
    for (const s of set) if (!s.closed) s.peer.send(text);
  }

  function deliverLine(row: StdoutRow) {
    const topic = daemonTopic(row.mint);
    broadcast(topic, JSON.stringify(eventFrame(topic, "daemon.stdout", stdoutView(row))));
  }

  const samePrice = (a: SolPrice | null, b: SolPrice) => !!a && a.usd === b.usd && a.conf === b.conf && a.source === b.source && a.publishTime === b.publishTime;

  async function pollPrice() {
    const p = await deps.price.current().catch(() => null);
    if (!p || samePrice(lastPrice, p)) return;
    lastPrice = p;
    broadcast(PRICE_TOPIC, JSON.stringify(eventFrame(PRICE_TOPIC, "price.sol", p)));
  }

  function added(s: Socket, topic: Topic) {
    let set = subscribers.get(topic);
    if (!set) subscribers.set(topic, (set = new Set()));
    set.add(s);
    s.topics.add(topic);
    if (topic === PRICE_TOPIC && !priceTimer) {
      priceTimer = setInterval(() => void pollPrice(), deps.priceEveryMs ?? 1000);
      priceTimer.unref?.();
    }
  }

  function removed(s: Socket, topic: Topic) {
    s.topics.delete(topic);
    const set = subscribers.get(topic);
    if (!set) return;
    set.delete(s);
    if (set.size) return;
    subscribers.delete(topic);
    const mint = mintOfTopic(topic);
    if (mint) deps.relay.unwatch(mint);
    if (topic === PRICE_TOPIC && priceTimer) {
      clearInterval(priceTimer);
      priceTimer = null;
      lastPrice = null;
    }
  }

  /** Visible agents among `mints` with their newest line id (0 when none yet). */
  async function visibleAgents(mints: string[]): Promise<Map<string, bigint>> {
    if (!mints.length) return new Map();
    const rows = await deps.sql<{ mint: string; last: bigint }[]>`
      SELECT a.mint, COALESCE((SELECT max(s.id) FROM daemon_stdout s WHERE s.mint = a.mint), 0)::bigint AS last
      FROM agents a WHERE a.mint = ANY(${mints}::text[]) AND NOT a.hidden`;
    return new Map(rows.map((r) => [r.mint, r.last]));
  }

  async function subscribe(s: Socket, c: Extract<Command, { op: "subscribe" }>) {
    const fresh = c.topics.filter((t) => !s.topics.has(t));
    if (s.topics.size + fresh.length > limits.maxTopicsPerSocket)
      return send(s, errorFrame("TOO_MANY_TOPICS", `at most ${limits.maxTopicsPerSocket} topics per socket; unsubscribe some first`, { max: limits.maxTopicsPerSocket, subscribed: s.topics.size }, c.id));
    const mints = fresh.map(mintOfTopic).filter((m): m is string => m !== null);
    let visible: Map<string, bigint>;
    const unwatchIdle = () => mints.forEach((m) => subscribers.has(daemonTopic(m)) || deps.relay.unwatch(m));
    try {
      if (mints.length) await deps.relay.ready(5000); // "subscribed" means this process is listening: no line after it is missed
      // watched before the newest id is read, so a line committed meanwhile is not dropped
      mints.forEach((m) => deps.relay.watch(m));
      visible = await visibleAgents(mints);
    } catch (err) {
      unwatchIdle();
      deps.log.warn("realtime subscribe failed", { err: (err as Error).message });
      return send(s, errorFrame("UNAVAILABLE", "the realtime channel cannot reach its store right now; subscribe again in a few seconds", undefined, c.id));
    }
    if (s.closed) return unwatchIdle();
    const refused = fresh.filter((t) => {
      const m = mintOfTopic(t);
      return m !== null && !visible.has(m);
    });
    for (const t of fresh) {
      const m = mintOfTopic(t);
      if (m !== null && !visible.has(m)) continue;
      if (m !== null) deps.relay.watch(m, visible.get(m)!);
      added(s, t);
    }
    unwatchIdle();
    if (refused.length) send(s, errorFrame("NOT_FOUND", "no such agent (unknown or hidden)", { topics: refused }, c.id));
    const accepted = c.topics.filter((t) => s.topics.has(t));
    if (accepted.length) send(s, answerFrame("subscribed", accepted, c.id));
    if (accepted.includes(PRICE_TOPIC) && fresh.includes(PRICE_TOPIC)) {
      // the price as it is now, then each change
      const p = lastPrice ?? (await deps.price.current().catch(() => null));
      if (p && !lastPrice) lastPrice = p; // the poll then sends only what differs from it
      if (p && !s.closed) send(s, eventFrame(PRICE_TOPIC, "price.sol", p));
    }
  }

  function takeFrame(s: Socket): boolean {
    const now = performance.now();
    s.tokens = Math.min(limits.frameBurst, s.tokens + ((now - s.refilledAt) / 1000) * limits.framesPerSecond);
    s.refilledAt = now;
    if (s.tokens < 1) return false;
    s.tokens -= 1;
    return true;
  }

  async function handle(s: Socket, message: unknown) {
    const c = readFrame(message, limits.maxTopicsPerSocket);
    if (c.op === "error") return send(s, c);
    if (c.op === "ping") return send(s, pongFrame(c.id));
    if (c.op === "subscribe") return subscribe(s, c);
    for (const t of c.topics) removed(s, t);
    send(s, answerFrame("unsubscribed", c.topics, c.id));
  }

  function closed(s: Socket) {
    if (s.closed) return;
    s.closed = true;
    open.delete(s);
    for (const t of [...s.topics]) removed(s, t);
    if (s.client !== null) {
      const n = (perClient.get(s.client) ?? 1) - 1;
      if (n > 0) perClient.set(s.client, n);
      else perClient.delete(s.client);
    }
  }

  return {
    /** A new socket, or null when its client has `maxSocketsPerClient` open already (it is told and closed). */
    open(peer: Peer, client: string | null): Socket | null {
      if (client !== null && (perClient.get(client) ?? 0) >= limits.maxSocketsPerClient) {
        peer.send(JSON.stringify(errorFrame("TOO_MANY_SOCKETS", `at most ${limits.maxSocketsPerClient} open sockets per client address`, { max: limits.maxSocketsPerClient })));
        peer.close(1008, "too many sockets");
        return null;
      }
      if (client !== null) perClient.set(client, (perClient.get(client) ?? 0) + 1);
      const s: Socket = { peer, client, topics: new Set(), tokens: limits.frameBurst, refilledAt: performance.now(), queue: Promise.resolve(), closed: false };
      open.add(s);
      return s;
    },
    message(s: Socket, message: unknown) {
      if (s.closed) return;
      if (!takeFrame(s)) {
        send(s, errorFrame("RATE_LIMITED", `more than ${limits.framesPerSecond} frames a second; closing`));
        s.peer.close(1008, "too many frames");
        return;
      }
      s.queue = s.queue.then(() => handle(s, message)).catch((err) => deps.log.warn("realtime frame failed", { err: (err as Error).message }));
    },
    close: closed,
    deliverLine,
    /** sockets and topics held now (tests, metrics) */
    counts: () => ({ sockets: open.size, topics: subscribers.size }),
    /** Shutdown: every socket is closed with 1001 (going away: the client reconnects, to another replica if need be), so the server can stop. */
    stop() {
      if (priceTimer) clearInterval(priceTimer);
      priceTimer = null;
      for (const s of [...open]) {
        s.peer.close(1001, "server shutting down");
        closed(s);
      }
    },
  };
}
