/**
 * The one retry policy helper: exponential backoff with jitter (p-retry: each delay times
 * a random factor between 1 and 2), a bound on attempts, an optional abort signal, and a
 * hook to refuse errors that retrying cannot fix. Every retry loop in the product goes through here, so policies are
 * named in one place instead of hand-written loops with their own sleeps.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pRetry, { AbortError } from "p-retry";

export type RetryPolicy = {
  /** attempts after the first one */
  retries: number;
  /** delay before the first retry, ms */
  minDelayMs: number;
  /** cap on any one delay, ms */
  maxDelayMs: number;
  /** growth of the delay per attempt (default 2) */
  factor?: number;
};

export type RetryOptions = RetryPolicy & {
  /** false: give up at once with this error (e.g. a 4xx that will not change) */
  shouldRetry?: (err: unknown) => boolean;
  /** called before each wait (not after the last failure), for logs */
  onRetry?: (err: unknown, attempt: number, retriesLeft: number) => void;
  /** the least wait this error asks for before the next attempt, ms (e.g. a server's Retry-After); added to the backoff */
  waitAtLeastMs?: (err: unknown) => number | null;
  signal?: AbortSignal;
};

/** Runs `fn` until it resolves, retrying failures with jittered exponential backoff. */
export function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  return pRetry((attempt) => fn(attempt), {
    retries: opts.retries,
    minTimeout: opts.minDelayMs,
    maxTimeout: opts.maxDelayMs,
    factor: opts.factor ?? 2,
    randomize: true,
    signal: opts.signal,
    // p-retry asks this only when attempts are left, so onRetry and the wait happen only before a retry
    shouldRetry: async ({ error, attemptNumber, retriesLeft }) => {
      if (opts.shouldRetry && !opts.shouldRetry(error)) return false;
      opts.onRetry?.(error, attemptNumber, retriesLeft);
      const least = opts.waitAtLeastMs?.(error) ?? 0;
      if (least > 0) await sleep(least, undefined, { signal: opts.signal });
      return true;
    },
  });
}

/** Throw this from `fn` to stop retrying at once with `cause` as the error. */
export function giveUp(cause: Error): never {
  throw new AbortError(cause);
}
