/**
 * A small plain JSON-RPC client for the two history reads of backfill and
 * reconciliation. Not web3.js: its getTransaction turns the result into Message
 * classes, while the decode path (normalizeRpcTransaction) wants the wire JSON
 * with base58 data, as Helius raw webhooks carry it.
 *
 * Every call retries HTTP 429/5xx, network errors, timeouts and the JSON-RPC
 * errors that mean "try again later", with jittered exponential backoff
 * (infra/retry.ts), honoring Retry-After, for a bounded number of attempts.
 */
import { retry } from "../../infra/retry";

export type SignatureInfo = { signature: string; slot: number; err: unknown; blockTime: number | null };

export type ChainReader = {
  /** newest first, strictly older than `before`, at most `limit` (≤ 1000) */
  signatures(address: string, o: { before?: string; until?: string; limit: number }): Promise<SignatureInfo[]>;
  /** the getTransaction result in the json encoding; throws when still unknown after the retries */
  transaction(signature: string): Promise<unknown>;
};

export type RetryOptions = {
  /** attempts per call, the first included (default 8) */
  maxAttempts?: number;
  /** first backoff (default 250 ms, jittered), doubled per attempt up to maxDelayMs (default 15 s) */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** one HTTP request (default 30 s) */
  timeoutMs?: number;
  /** told of every retry, for logs and progress */
  onRetry?: (info: { method: string; attempt: number; retryAfterMs: number | null; reason: string }) => void;
};

export class RpcError extends Error {
  constructor(message: string, readonly transient: boolean, readonly retryAfterMs: number | null = null) {
    super(message);
  }
}

// Node behind / block or slot not available yet / min context slot not reached / rate limits some providers return in-band
const TRANSIENT_CODES = new Set([-32004, -32005, -32007, -32014, -32016, 429, -32429]);

/** Retry-After: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function createChainReader(url: string, opts: RetryOptions = {}): ChainReader {
  const maxAttempts = opts.maxAttempts ?? 8;
  const base = opts.baseDelayMs ?? 250;
  const cap = opts.maxDelayMs ?? 15_000;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  let id = 0;

  async function once(method: string, params: unknown[]): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new RpcError(`${method}: ${(err as Error).message}`, true);
    }
    if (!res.ok) {
      const transient = res.status === 429 || res.status >= 500;
      const text = await res.text().catch(() => "");
      throw new RpcError(`${method}: HTTP ${res.status} ${text.slice(0, 200)}`, transient, parseRetryAfter(res.headers.get("retry-after")));
    }
    let body: { result?: unknown; error?: { code: number; message: string } };
    try {
      body = (await res.json()) as typeof body;
    } catch (err) {
      throw new RpcError(`${method}: the answer is not JSON (${(err as Error).message})`, true);
    }
    if (body.error) throw new RpcError(`${method}: RPC error ${body.error.code} ${body.error.message}`, TRANSIENT_CODES.has(body.error.code));
    return body.result;
  }

  /** `accept` says whether a result is final; a null getTransaction result is retried like an error */
  async function call(method: string, params: unknown[], accept: (r: unknown) => boolean = () => true): Promise<unknown> {
    return retry(
      async () => {
        const result = await once(method, params);
        if (!accept(result)) throw new RpcError(`${method}: no result yet for ${JSON.stringify(params[0])}`, true);
        return result;
      },
      {
        retries: maxAttempts - 1,
        minDelayMs: base,
        maxDelayMs: cap,
        shouldRetry: (err) => err instanceof RpcError && err.transient,
        // a rate limit's Retry-After is honoured, up to a minute
        waitAtLeastMs: (err) => (err instanceof RpcError ? Math.min(err.retryAfterMs ?? 0, 60_000) : null),
        onRetry: (err, attempt) => opts.onRetry?.({ method, attempt, retryAfterMs: (err as RpcError).retryAfterMs, reason: (err as Error).message }),
      },
    );
  }

  return {
    async signatures(address, o) {
      const config: Record<string, unknown> = { limit: o.limit, commitment: "confirmed" };
      if (o.before) config.before = o.before;
      if (o.until) config.until = o.until;
      const result = await call("getSignaturesForAddress", [address, config]);
      if (!Array.isArray(result)) throw new RpcError("getSignaturesForAddress: expected an array", false);
      return result as SignatureInfo[];
    },
    transaction: (signature) =>
      call("getTransaction", [signature, { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" }], (r) => r !== null),
  };
}
