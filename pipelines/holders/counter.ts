/**
 * Keeps `holder_counts` in step with `token_balances` in the process that stores facts: the
 * sink tells it which coins got balance rows (`changed`), and it recounts them together, at
 * most once every `minIntervalMs` (2 s): a busy coin is recounted every 2 s, not per write.
 * A count reads every balance row of its coins, so it grows with their history: counts take
 * at most `maxBusyShare` of the time (a quarter: after a count of 1 s the next waits 3 s), and
 * the engine is left to the writes in between.
 * A coin that changes during a count waits for the next one, so none is lost; a count that
 * fails puts its coins back and is tried again at the next interval.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { Logger } from "../../infra/log";
import { recountHolders, uncountedMints } from "./count";

export type HolderCounter = {
  /** these coins' balances changed: recount them soon */
  changed(mints: readonly string[]): void;
  /** recounts what is waiting now, without the interval; resolves when it is done (tests, shutdown) */
  flush(): Promise<void>;
  /** queues the coins that have balances but no count (a process stopped between a write and its count) */
  countUncounted(): Promise<void>;
  /** no new counts; waits for the one running */
  stop(): Promise<void>;
};

export type HolderCounterDeps = {
  ch: ClickHouse;
  log: Logger;
  /** the least time between two counts (default 2 s) */
  minIntervalMs?: number;
  /** the largest share of the time counts may take (default 0.25) */
  maxBusyShare?: number;
  /** the count itself (default: recountHolders); tests replace it */
  recount?: (mints: string[]) => Promise<void>;
};

export function createHolderCounter(deps: HolderCounterDeps): HolderCounter {
  const minIntervalMs = deps.minIntervalMs ?? 2000;
  const restPerMs = 1 / (deps.maxBusyShare ?? 0.25) - 1;
  const recount = deps.recount ?? ((mints: string[]) => recountHolders(deps.ch, mints));
  const pending = new Set<string>();
  let running: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastStart = -Infinity;
  /** when the last count ended, and how long it took */
  let lastEnd = -Infinity;
  let lastMs = 0;
  let stopped = false;

  function schedule(): void {
    if (stopped || running || timer || pending.size === 0) return;
    const next = Math.max(lastStart + minIntervalMs, lastEnd + lastMs * restPerMs);
    timer = setTimeout(run, Math.max(0, next - performance.now()));
    timer.unref?.();
  }

  function run(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    if (running) return running;
    const mints = [...pending];
    pending.clear();
    lastStart = performance.now();
    running = recount(mints)
      .catch((err: unknown) => {
        for (const m of mints) pending.add(m);
        deps.log.warn("holder count failed; retried at the next interval", { coins: mints.length, error: String(err) });
      })
      .finally(() => {
        lastEnd = performance.now();
        lastMs = lastEnd - lastStart;
        running = null;
        schedule();
      });
    return running;
  }

  function changed(mints: readonly string[]): void {
    for (const m of mints) pending.add(m);
    schedule();
  }

  return {
    changed,
    async flush() {
      if (running) await running;
      if (pending.size && !stopped) await run();
    },
    async countUncounted() {
      changed(await uncountedMints(deps.ch));
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (running) await running;
    },
  };
}
