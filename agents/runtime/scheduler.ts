/**
 * Runs decision cycles: each turn takes queued checks (POST /check: the agent's cycle
 * becomes due now) and proposals to regenerate (likewise), then leases as many due cycles as it has free slots
 * (AGENT_CYCLE_CONCURRENCY) and runs them, each under the cycle timeout. A cycle that
 * throws is told as an error line; it never stops the loop. Idle, it looks again every
 * `pollMs` or as soon as a slot frees.
 */
import { randomUUID } from "node:crypto";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import { appendStdout, takeQueuedCheck } from "../../api/daemons/store";
import { runCycle, type CycleDeps, type CycleResult } from "./cycle";
import { claimDue, dueForRegeneration, dueNow, finishCycle, nextCycleInMs } from "./schedule";

export type SchedulerOptions = {
  sql: Sql;
  cycle: CycleDeps;
  log: Logger;
  cadenceMs: number;
  timeoutMs: number;
  concurrency: number;
  pollMs?: number;
  /** after each cycle (tests and the benchmark count them) */
  onCycle?: (mint: string, r: CycleResult | null, ms: number) => void;
};

export type Scheduler = { stop(): Promise<void>; readonly running: number };

/** What a lease lasts beyond the cycle's timeout: time to write its last lines. */
const LEASE_GRACE_MS = 30_000;
const CHECKS_PER_TURN = 100;

export function startScheduler(o: SchedulerOptions): Scheduler {
  const token = randomUUID();
  const running = new Set<Promise<void>>();
  let stopped = false;
  let wake: (() => void) | null = null;
  const kick = () => wake?.();

  async function one(mint: string, cycle: number, failures: number) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), o.timeoutMs);
    const started = performance.now();
    let result: CycleResult | null = null;
    try {
      result = await runCycle(o.cycle, mint, cycle, controller.signal);
    } catch (err) {
      o.log.warn("decision cycle failed", { mint, err: (err as Error).message });
      await appendStdout(o.sql, mint, { kind: "error", body: `The decision cycle failed: ${controller.signal.aborted ? "it timed out" : "an internal error"}.`, meta: { source: "runtime", cycle } }).catch(() => {});
    } finally {
      clearTimeout(timer);
    }
    const ok = result?.ok ?? false;
    await finishCycle(o.sql, mint, token, { ok, nextInMs: nextCycleInMs(o.cadenceMs, ok, failures) }).catch((err) =>
      o.log.warn("could not end a decision cycle's lease (it runs out by itself)", { mint, err: (err as Error).message }),
    );
    o.onCycle?.(mint, result, performance.now() - started);
  }

  async function turn(): Promise<boolean> {
    let found = false;
    for (let i = 0; i < CHECKS_PER_TURN; i++) {
      const check = await takeQueuedCheck(o.sql);
      if (!check) break;
      await dueNow(o.sql, check.mint);
      found = true;
    }
    await dueForRegeneration(o.sql);
    const free = o.concurrency - running.size;
    const claimed = await claimDue(o.sql, { limit: free, leaseMs: o.timeoutMs + LEASE_GRACE_MS, token });
    for (const c of claimed) {
      const p: Promise<void> = one(c.mint, c.cycle, c.failures).finally(() => {
        running.delete(p);
        kick();
      });
      running.add(p);
    }
    return found || claimed.length > 0;
  }

  const loop = (async () => {
    while (!stopped) {
      let busy = false;
      try {
        busy = await turn();
      } catch (err) {
        o.log.warn("agent scheduler turn failed", { err: (err as Error).message });
      }
      if (stopped) break;
      if (busy && running.size < o.concurrency) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, o.pollMs ?? 1000);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = null;
    }
  })();

  return {
    get running() {
      return running.size;
    },
    async stop() {
      stopped = true;
      kick();
      await loop;
      await Promise.all(running);
    },
  };
}
