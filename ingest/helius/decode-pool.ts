/**
 * Decoding webhook bodies on worker threads, so the event loop that serves HTTP
 * and writes batches never spends its time in JSON.parse and Borsh. With zero
 * workers it decodes inline (same code, same answers).
 *
 * A decoder that throws, or a worker that dies, is our fault, not the sender's: the
 * call rejects with `DecoderUnavailable` (the webhook answers 503, nothing is stored,
 * Helius retries), never a 400. A dead worker's calls in flight fail at once, and the
 * worker is replaced when it is next needed (not in a loop, should it die at start).
 *
 * With a fact scope (contract/fact-scope.ts) the workers decode only the balance facts the
 * pipelines can use. Each worker holds a copy of the scope: the coins a worker learns from
 * what it decodes are passed to the others, and `learnCoins` adds those the pipelines learn
 * (a pool stored by any path), so every worker follows the platform's coins.
 */
import type { TxEnvelope } from "../contract/envelope";
import type { FactScope } from "../contract/fact-scope";
import { decodeWebhookText, type DecodedBody, type DecodeOptions } from "./handle";
import { fromTuples, toTuples, type EnvelopeTuples } from "./envelope-tuples";

export type DecodePool = {
  decode(text: string, source: TxEnvelope["source"], receivedAt?: number): Promise<DecodedBody>;
  /** decode with this scope from now on (null: every fact) */
  setScope(scope: FactScope | null): void;
  /** these coins are the platform's (the scope's `coins` grow) */
  learnCoins(mints: readonly string[]): void;
  close(): Promise<void>;
};

/** The decoder failed (threw, or its worker died): a fault of ours; the same body may decode on a retry. */
export class DecoderUnavailable extends Error {}

export type DecodeRequest = { id: number; text: string; source: TxEnvelope["source"]; receivedAt: number };
/** What the pool tells a worker of the scope: a new one, or coins to add to the one it has. */
export type ScopeMessage = { scope: FactScope | null } | { coins: readonly string[] };
/** `learned`: coins this call's transactions proved that the worker's scope did not know */
export type DecodeAnswer = { id: number; result: DecodedBody; learned: string[] } | { id: number; failure: string };
/** What a worker posts: a decoded body's envelopes as tuples (envelope-tuples.ts: cheaper to clone). */
export type WorkerAnswer =
  | { id: number; result: { ok: true; tuples: EnvelopeTuples } | { ok: false; message: string }; learned: string[] }
  | { id: number; failure: string };

type Decode = (text: string, source: TxEnvelope["source"], receivedAt: number, opts: DecodeOptions) => DecodedBody;

/** A worker's answer to one request (a test double may pass its own `decode`). */
export function answerDecode(req: DecodeRequest, decode: Decode = decodeWebhookText, scope: FactScope | null = null): DecodeAnswer {
  const learned: string[] = [];
  try {
    return { id: req.id, result: decode(req.text, req.source, req.receivedAt, { scope, learned }), learned };
  } catch (err) {
    return { id: req.id, failure: (err as Error).message };
  }
}

/**
 * A worker's side of the pool (the worker script and its test double run it): keeps the
 * scope it is told and answers decode requests with it. Returns the answer to post, if any.
 */
export function decodeWorker(decode: Decode = decodeWebhookText): (message: DecodeRequest | ScopeMessage) => WorkerAnswer | null {
  let scope: FactScope | null = null;
  return (message) => {
    if ("scope" in message) scope = message.scope;
    else if ("coins" in message) for (const mint of message.coins) scope?.coins?.add(mint);
    else {
      const answer = answerDecode(message, decode, scope);
      if ("failure" in answer || !answer.result.ok) return answer as WorkerAnswer;
      return { id: answer.id, result: { ok: true, tuples: toTuples(answer.result.envelopes) }, learned: answer.learned };
    }
    return null;
  };
}

const WORKER_SCRIPT = new URL("./decode-worker.ts", import.meta.url);

/** `opts.script`: the worker script (tests pass a faulty double); the default is decode-worker.ts. */
export function createDecodePool(workers: number, opts: { script?: URL; scope?: FactScope | null } = {}): DecodePool {
  // the pool's own copy: a worker started later (or in place of a dead one) is given it
  let scope: FactScope | null = opts.scope ? copyScope(opts.scope) : null;
  const learn = (mints: readonly string[]) => {
    for (const mint of mints) scope?.coins?.add(mint);
  };
  if (workers <= 0) {
    return {
      decode: async (text, source, receivedAt = Date.now()) => {
        const answer = answerDecode({ id: 0, text, source, receivedAt }, decodeWebhookText, scope);
        if ("failure" in answer) throw new DecoderUnavailable(`the decoder failed: ${answer.failure}`);
        return answer.result;
      },
      setScope: (next) => void (scope = next ? copyScope(next) : null),
      learnCoins: learn,
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
    if (scope) worker.postMessage({ scope } satisfies ScopeMessage);
    worker.onmessage = (e: MessageEvent<WorkerAnswer>) => {
      const answer = e.data;
      if ("learned" in answer && answer.learned.length) {
        learn(answer.learned);
        tell({ coins: answer.learned }, thread);
      }
      const waiting = thread.pending.get(answer.id);
      thread.pending.delete(answer.id);
      if (thread.pending.size === 0) worker.unref();
      if (!waiting) return;
      if ("failure" in answer) waiting.reject(new DecoderUnavailable(`the decoder failed: ${answer.failure}`));
      else if (!answer.result.ok) waiting.resolve(answer.result);
      else {
        let envelopes: TxEnvelope[];
        try {
          envelopes = fromTuples(answer.result.tuples);
        } catch (err) {
          waiting.reject(new DecoderUnavailable(`the decoder's answer could not be read: ${(err as Error).message}`));
          return;
        }
        waiting.resolve({ ok: true, envelopes });
      }
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
  /** to every live worker but `except` (which knows already) */
  const tell = (message: ScopeMessage, except?: Thread) => {
    for (const t of threads) if (t !== except && !t.dead) t.worker.postMessage(message);
  };
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
    setScope(next) {
      scope = next ? copyScope(next) : null;
      tell({ scope });
    },
    learnCoins(mints) {
      const fresh = mints.filter((m) => scope?.coins && !scope.coins.has(m));
      if (fresh.length === 0) return;
      learn(fresh);
      tell({ coins: fresh });
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

/** The pool's own copy: its coins grow as the pool learns, never the caller's set. */
function copyScope(scope: FactScope): FactScope {
  return { ...scope, coins: scope.coins ? new Set(scope.coins) : null };
}
