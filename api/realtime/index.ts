/**
 * The realtime channel: a websocket at /v1/ws (protocol in api/README.md "Realtime channel").
 * The hub (hub.ts) holds this process's sockets and topics; the relay (relay.ts) brings every
 * process's stdout lines here over Postgres LISTEN/NOTIFY.
 */
import { Elysia } from "elysia";
import type { ClientAddressOf } from "../public/client-address";
import type { Hub, Socket } from "./hub";

export type RealtimeRouteDeps = { hub: Hub; clientOf: ClientAddressOf };

/** Bun's server-wide websocket settings (Elysia passes the root app's `websocket` config to Bun.serve). */
export const WEBSOCKET_SETTINGS = {
  /** a frame is a few topics: 50 mints fit in 4 kB with room to spare; larger frames close the socket (1009) */
  maxPayloadLength: 4096,
  /** seconds without a frame or a pong before Bun closes the socket; Bun pings idle sockets (sendPings) */
  idleTimeout: 60,
  sendPings: true,
  /** a client that reads slower than events come is closed once 1 MB waits for it */
  backpressureLimit: 1024 * 1024,
  closeOnBackpressureLimit: true,
} as const;

export const realtimeRoutes = (deps: RealtimeRouteDeps) => {
  const sockets = new WeakMap<object, Socket>();
  return new Elysia().ws("/v1/ws", {
    open(ws) {
      const { request, server } = ws.data as unknown as { request: Request; server: { requestIP(r: Request): { address: string } | null } | null };
      const peer = server?.requestIP(request)?.address ?? ws.raw.remoteAddress ?? null;
      const s = deps.hub.open(ws.raw, deps.clientOf(peer, request.headers.get("x-forwarded-for")));
      if (s) sockets.set(ws.raw, s);
    },
    message(ws, message) {
      const s = sockets.get(ws.raw);
      if (s) deps.hub.message(s, message);
    },
    close(ws) {
      const s = sockets.get(ws.raw);
      if (s) deps.hub.close(s);
    },
  });
};
