/**
 * Decoding webhook bodies on worker threads, so the event loop that serves HTTP
 * and writes batches never spends its time in JSON.parse and Borsh. With zero
 * workers it decodes inline (same code, same answers).
 */
import type { TxEnvelope } from "../../pipelines/envelope";
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
  const threads = Array.from({ length: workers }, () => {
    const w = new Worker(new URL("./decode-worker.ts", import.meta.url).href);
    (w as unknown as { unref(): void }).unref(); // an idle decoder never keeps the process alive
    w.onmessage = (e: MessageEvent) => {
      const done = pending.get(e.data.id);
      pending.delete(e.data.id);
      done?.(e.data.result);
    };
    return w;
  });
  let nextId = 0;
  return {
    decode(text, source, receivedAt = Date.now()) {
      const id = nextId++;
      return new Promise<DecodedBody>((resolve) => {
        pending.set(id, resolve);
        threads[id % threads.length]!.postMessage({ id, text, source, receivedAt });
      });
    },
    async close() {
      for (const t of threads) t.terminate();
    },
  };
}
