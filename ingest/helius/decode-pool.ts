/**
 * Decoding webhook bodies on worker threads, so the event loop that serves HTTP
 * and writes batches never spends its time in JSON.parse and Borsh. With zero
 * workers it decodes inline (same code, same answers).
 *
 * A decoder that throws, or a worker that dies, is our fault, not the sender's: the
 * call rejects with `DecoderUnavailable` (the webhook answers 503, nothing is stored,
 * Helius retries), never a 400. A dead worker's calls in flight fail at once, and the
 * worker is replaced when it is next needed (not in a loop, should it die at start).
 */
import type { TxEnvelope } from "../contract/envelope";
import { decodeWebhookText, type DecodedBody } from "./handle";

export type DecodePool = {
  decode(text: string, source: TxEnvelope["source"], receivedAt?: number): Promise<DecodedBody>;
  close(): Promise<void>;
};

/** The decoder failed (threw, or its worker died): a fault of ours; the same body may decode on a retry. */
export class DecoderUnavailable extends Error {}

export type DecodeRequest = { id: number; text: string; source: TxEnvelope["source"]; receivedAt: number };
export type DecodeAnswer = { id: number; result: DecodedBody } | { id: number; failure: string };

/** A worker's answer to one request (the worker script calls this; a test double may pass its own `decode`). */
export function answerDecode(req: DecodeRequest, decode: typeof decodeWebhookText = decodeWebhookText): DecodeAnswer {
  try {
    return { id: req.id, result: decode(req.text, req.source, req.receivedAt) };
  } catch (err) {
    return { id: req.id, failure: (err as Error).message };
  }
}

const WORKER_SCRIPT = new URL("./decode-worker.ts", import.meta.url);

/** `opts.script`: the worker script (tests pass a faulty double); the default is decode-worker.ts. */
export function createDecodePool(workers: number, opts: { script?: URL } = {}): DecodePool {
  if (workers <= 0) {
    return {
      decode: async (text, source, receivedAt = Date.now()) => {
        const answer = answerDecode({ id: 0, text, source, receivedAt });
        if ("failure" in answer) throw new DecoderUnavailable(`the decoder failed: ${answer.failure}`);
        return answer.result;
      },
      close: async () => {},
    };
  }
  type Pending = { resolve(r: DecodedBody): void; reject(e: Error): void };
  // An idle decoder never keeps the process alive, so a worker is unref'd whenever it has
  // nothing in flight, and ref'd while it has. When nothing else keeps the event loop alive
  // (a script or bench; ingest's HTTP server does), Bun's loop spins while it waits for
  // unref'd workers: the main thread burned as much CPU as the decoding itself (measured).
  type Thread = { worker: Worker & { ref(): void; unref(): void }; pending: Map<number, Pending>; dead: boolean };
  const script = (opts.script ?? WORKER_SCRIPT).href;
  let closed = false;

  const spawn = (): Thread => {
    const worker = new Worker(script) as Thread["worker"];
    worker.unref();
    const thread: Thread = { worker, pending: new Map(), dead: false };
    worker.onmessage = (e: MessageEvent<DecodeAnswer>) => {
      const answer = e.data;
      const waiting = thread.pending.get(answer.id);
      thread.pending.delete(answer.id);
      if (thread.pending.size === 0) worker.unref();
      if (!waiting) return;
      if ("failure" in answer) waiting.reject(new DecoderUnavailable(`the decoder failed: ${answer.failure}`));
      else waiting.resolve(answer.result);
    };
    // an uncaught error ends a worker's usefulness (its state is unknown); `close` is its exit
    const died = (why: string) => {
      if (thread.dead) return;
      thread.dead = true;
      worker.terminate();
      const failure = new DecoderUnavailable(`a decode worker stopped (${why}); the call was not decoded`);
      for (const waiting of thread.pending.values()) waiting.reject(failure);
      thread.pending.clear();
      worker.unref();
    };
    worker.addEventListener("error", (e) => died((e as ErrorEvent).message || "uncaught error"));
    worker.addEventListener("close", () => died("exited"));
    return thread;
  };
  const threads: Thread[] = Array.from({ length: workers }, spawn);
  let nextId = 0;
  return {
    decode(text, source, receivedAt = Date.now()) {
      if (closed) return Promise.reject(new DecoderUnavailable("the decode pool is closed"));
      const id = nextId++;
      const slot = id % threads.length;
      if (threads[slot]!.dead) threads[slot] = spawn();
      const thread = threads[slot]!;
      return new Promise<DecodedBody>((resolve, reject) => {
        if (thread.pending.size === 0) thread.worker.ref();
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ id, text, source, receivedAt } satisfies DecodeRequest);
      });
    },
    async close() {
      closed = true;
      for (const t of threads) {
        t.dead = true;
        t.worker.terminate();
        for (const waiting of t.pending.values()) waiting.reject(new DecoderUnavailable("the decode pool is closed"));
        t.pending.clear();
      }
    },
  };
}
