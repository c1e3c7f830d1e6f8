/**
 * When the address sync runs inside a long-lived process: once at start, soon after a
 * platform pool appears (debounced: a burst of pools is one sync), and every ten
 * minutes as a safety net. Single-flight: a request while a sync runs makes exactly
 * one more run after it. A failure (after the API client's own retries) is logged and
 * left to the next request or period; it never reaches the caller.
 */
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import type { Sql } from "../../infra/postgres";
import { syncWebhookAddresses, type SyncResult } from "./address-sync";
import { createWebhookApi } from "./webhook-api";

export type AddressSyncRunner = {
  /** asks for a sync soon; cheap, never throws */
  request(reason: string): void;
  /** resolves when no sync is due or running (for tests and shutdown) */
  idle(): Promise<void>;
  stop(): Promise<void>;
  /** completed syncs, failed ones included */
  readonly runs: number;
};

export function startAddressSyncRunner(o: {
  sync: () => Promise<SyncResult>;
  log: Logger;
  /** wait after a request, collecting others (default 2 s) */
  debounceMs?: number;
  /** safety sync period (default 10 min) */
  periodMs?: number;
}): AddressSyncRunner {
  const debounceMs = o.debounceMs ?? 2_000;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let runs = 0;
  const reasons = new Set<string>();
  const waiters: (() => void)[] = [];

  const settleIfIdle = () => {
    if (timer || running) return;
    for (const w of waiters.splice(0)) w();
  };

  const run = async () => {
    timer = null;
    const why = [...reasons];
    reasons.clear();
    try {
      const r = await o.sync();
      if (r.changed)
        o.log.info("helius webhook addresses synced", { webhookId: r.webhookId, added: r.added, removed: r.removed, total: r.total, reasons: why });
      else o.log.debug("helius webhook addresses already in sync", { webhookId: r.webhookId, total: r.total, reasons: why });
    } catch (err) {
      o.log.warn("helius webhook address sync failed; the next request or the periodic sync tries again", { err: (err as Error).message, reasons: why });
    } finally {
      runs++;
      running = null;
      if (again && !stopped) {
        again = false;
        schedule();
      }
      settleIfIdle();
    }
  };

  const schedule = () => {
    if (timer || stopped) return;
    timer = setTimeout(() => void (running = run()), debounceMs);
  };

  const request = (reason: string) => {
    if (stopped) return;
    reasons.add(reason);
    if (running) again = true;
    else schedule();
  };

  const period = setInterval(() => request("periodic"), o.periodMs ?? 600_000);
  period.unref?.();
  request("start");

  return {
    request,
    idle: () => new Promise<void>((resolve) => {
      waiters.push(resolve);
      settleIfIdle();
    }),
    async stop() {
      stopped = true;
      clearInterval(period);
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
      settleIfIdle();
    },
    get runs() {
      return runs;
    },
  };
}

/**
 * The runner for a process, from the configuration: null, with one log line saying
 * why, when HELIUS_API_KEY or HELIUS_WEBHOOK_ID is unset or the simulator plays the chain.
 */
export function webhookAddressSync(o: {
  config: Config;
  sql: Sql;
  configs: readonly string[];
  /** the treasury's addresses (contract/configs.ts treasuryAddresses) */
  treasury: readonly string[];
  log: Logger;
  debounceMs?: number;
  periodMs?: number;
}): AddressSyncRunner | null {
  const { apiKey, webhookId, apiUrl } = o.config.helius;
  if (!apiKey || !webhookId) {
    o.log.info(`helius webhook address sync is off: ${!apiKey ? "HELIUS_API_KEY" : "HELIUS_WEBHOOK_ID"} is not set`);
    return null;
  }
  if (o.config.simulator.enabled) {
    o.log.info("helius webhook address sync is off: the simulator plays the chain");
    return null;
  }
  const api = createWebhookApi({
    baseUrl: apiUrl,
    apiKey,
    onRetry: (message, attempt, left) => o.log.warn("helius webhook API call failed; retrying", { err: message, attempt, retriesLeft: left }),
  });
  return startAddressSyncRunner({
    sync: () => syncWebhookAddresses({ sql: o.sql, api, webhookId, configs: o.configs, treasury: o.treasury }),
    log: o.log,
    debounceMs: o.debounceMs,
    periodMs: o.periodMs,
  });
}

/**
 * Asks for a sync each time the pipelines learn a DAMM v2 pool (a coin graduated). A new
 * DBC pool changes nothing on the webhook: its swaps name its config, watched already.
 */
export function syncOnGraduation(pools: { onNewPool(fn: (p: { address: string; venue: string }) => void): void }, runner: AddressSyncRunner): void {
  pools.onNewPool((p) => {
    if (p.venue === "damm_v2") runner.request(`new DAMM v2 pool ${p.address}`);
  });
}
