/**
 * Decoding webhook bodies on worker threads, so the event loop that serves HTTP
 * and writes batches never spends its time in JSON.parse and Borsh. With zero
 * workers it decodes inline (same code, same answers).
 */
import type { TxEnvelope } from "../contract/envelope";
import { decodeWebhookText, type DecodedBody } from "./handle";

export type DecodePool = {
  decode(text: string, source: TxEnvelope["source"], receivedAt?: number): Promise<DecodedBody>;
  close(): Promise<void>;
};

export function createDecodePool(workers: number): DecodePool {
  if (workers <= 0) {
    return { decode: async (text, source, receivedAt = Date.now()) => decodeWebhookText(text, source, receivedAt), close: async () => {} };
  }
  const pending = new Map<number, (r: DecodedBody) => void>();
  // An idle decoder never keeps the process alive, so a worker is unref'd whenever it has
  // nothing in flight, and ref'd while it has. When nothing else keeps the event loop alive
  // (a script or bench; ingest's HTTP server does), Bun's loop spins while it waits for
  // unref'd workers: the main thread burned as much CPU as the decoding itself (measured).
  type Thread = { worker: Worker & { ref(): void; unref(): void }; inFlight: number };
  const threads: Thread[] = Array.from({ length: workers }, () => {
    const worker = new Worker(new URL("./decode-worker.ts", import.meta.url).href) as Thread["worker"];
    worker.unref();
    const thread: Thread = { worker, inFlight: 0 };
    worker.onmessage = (e: MessageEvent) => {
      const { id, result } = e.data;
      if (--thread.inFlight === 0) worker.unref();
      const done = pending.get(id);
      pending.delete(id);
      done?.(result);
    };
    return thread;
  });
  let nextId = 0;
  return {
    decode(text, source, receivedAt = Date.now()) {
      const id = nextId++;
      return new Promise<DecodedBody>((resolve) => {
        pending.set(id, resolve);
        const thread = threads[id % threads.length]!;
        if (thread.inFlight++ === 0) thread.worker.ref();
        thread.worker.postMessage({ id, text, source, receivedAt });
      });
    },
    async close() {
      for (const t of threads) t.worker.terminate();
    },
  };
}
