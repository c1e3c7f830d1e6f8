/**
 * A websocket client for tests and benchmarks (Bun's built-in WebSocket): frames kept as they
 * arrive, parsed as JSON, and taken by a predicate, waiting for them (never a sleep).
 */
export type TestSocket = {
  ws: WebSocket;
  /** frames received and not taken yet, oldest first */
  frames: any[];
  /** resolves when the socket closes, with the close code and reason */
  closed: Promise<{ code: number; reason: string }>;
  send(frame: unknown): void;
  /** the first frame (oldest first) matching `match`, taken out of `frames`; waits up to `ms` for it */
  take(what: string, match: (f: any) => boolean, ms?: number): Promise<any>;
  close(): Promise<void>;
};

export async function openTestSocket(url: string): Promise<TestSocket> {
  const ws = new WebSocket(url);
  const frames: any[] = [];
  const waiters = new Set<() => void>();
  let onClose!: (c: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (onClose = r));
  ws.addEventListener("message", (e) => {
    let f: unknown = e.data;
    try {
      f = JSON.parse(String(e.data));
    } catch {}
    frames.push(f);
    for (const w of [...waiters]) w();
  });
  ws.addEventListener("close", (e) => {
    onClose({ code: e.code, reason: e.reason });
    for (const w of [...waiters]) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot open ${url}`)), { once: true });
  });
  const take = (what: string, match: (f: any) => boolean, ms = 10_000) =>
    new Promise<any>((resolve, reject) => {
      const look = () => {
        const i = frames.findIndex(match);
        if (i < 0) return false;
        cleanup();
        resolve(frames.splice(i, 1)[0]);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(frames).slice(0, 500)}`));
      }, ms);
      const waiter = () => void look();
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(waiter);
      };
      if (!look()) waiters.add(waiter);
    });
  return {
    ws,
    frames,
    closed,
    send: (frame) => ws.send(typeof frame === "string" || frame instanceof Uint8Array ? frame : JSON.stringify(frame)),
    take,
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      ws.close();
      await closed;
    },
  };
}
