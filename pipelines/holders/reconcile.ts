/**
 * Holder reconciliation over RPC: the webhook can miss a coin's transfers (a delivery Helius
 * gave up on, a transfer in a transaction that names no platform address), so the chain's own
 * answer heals the balances. For a coin, both token programs are asked for every account of
 * its mint (getProgramAccounts, with the context slot); each account whose balance differs from
 * ours (or that we did not know) gets a 'snapshot' row at its answer's slot, every account we
 * hold a positive balance for that the chain no longer returns (closed since) a 0 snapshot,
 * then the coin is recounted. A transaction at or below
 * the snapshot's slot is inside the snapshot (count.ts), so a late delivery never counts twice.
 *
 * Nothing is written unless both answers are well formed. One run at a time across processes
 * (a Postgres advisory lock, like ingest/reconcile); scheduled over every platform coin, and
 * for a coin whose missed transactions the transaction reconciliation or a backfill healed.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import type { SolanaRpc, TokenAccountBalance } from "../../infra/solana-rpc";
import { LOCKS, withAdvisoryLock } from "../../infra/advisory-lock";
import type { TokenBalanceRow } from "../rows";
import { isNeverHolder } from "../../ingest/contract/fact-scope";
import { accountBalances, recountHolders } from "./count";

export type HolderReconcileDeps = {
  ch: ClickHouse;
  sql: Sql;
  rpc: Pick<SolanaRpc, "getTokenAccounts">;
  log: Logger;
};

/**
 * `accounts`: what the chain returned; `written`: snapshot rows (accounts that differ from ours,
 * `zeroed` of them closed since). `ms`: the whole; `readMs` both RPC reads beside our balances, `writeMs` the snapshot rows, `countMs` the recount. */
export type CoinReconciled = { mint: string; slot: number; accounts: number; written: number; zeroed: number; ms: number; readMs: number; writeMs: number; countMs: number };

/** Reconciles one coin's balances with the chain and recounts it. Throws (nothing written) when an answer is malformed. */
export async function reconcileCoinHolders(deps: HolderReconcileDeps, mint: string): Promise<CoinReconciled> {
  const started = performance.now();
  const [spl, t22, known] = await Promise.all([
    deps.rpc.getTokenAccounts(mint, "spl-token"),
    deps.rpc.getTokenAccounts(mint, "token-2022"),
    deps.ch.query<{ account: string; owner: string; balance: string; decimals: number }>(`SELECT account, owner, toString(balance) AS balance, decimals FROM (${accountBalances([mint])})`),
  ]);
  const at = Math.floor(Date.now() / 1000);
  const decimals = known[0]?.decimals ?? 0;
  const row = (slot: number, a: TokenAccountBalance): TokenBalanceRow => ({
    mint, account: a.account, slot, signature: `snapshot:${slot}`, ix: 0, inner: 0, at, owner: a.owner, kind: "snapshot", amount: a.amount, decimals,
  });
  const ours = new Map(known.map((k) => [k.account, k]));
  const rows: TokenBalanceRow[] = [];
  const seen = new Set<string>();
  for (const answer of [spl, t22])
    for (const a of answer.accounts) {
      if (seen.has(a.account)) continue;
      seen.add(a.account);
      // An account whose balance we hold already needs no row: only transactions we miss can
      // make it differ, and then it gets one. (A missed pair that cancels out, one of which
      // arrives later, is set right by the next run.) So a run writes what changed, not every
      // holder every hour.
      // the pools' vaults and the incinerator are never holders, and their balances are not stored
      if (isNeverHolder(a.owner)) continue;
      const mine = ours.get(a.account);
      if (mine === undefined || BigInt(mine.balance) !== a.amount || (mine.owner !== a.owner && a.amount > 0n)) rows.push(row(answer.slot, a));
    }
  // closed since: gone from its program's answer; the earlier of the two slots is safe for either
  const closedAt = Math.min(spl.slot, t22.slot);
  let zeroed = 0;
  for (const k of known)
    if (!seen.has(k.account) && BigInt(k.balance) > 0n && !isNeverHolder(k.owner)) {
      rows.push(row(closedAt, { account: k.account, owner: k.owner, amount: 0n }));
      zeroed++;
    }
  const read = performance.now();
  if (rows.length) await deps.ch.insert("token_balances", rows);
  const stored = performance.now();
  await recountHolders(deps.ch, [mint]);
  const done = performance.now();
  return {
    mint, slot: Math.max(spl.slot, t22.slot), accounts: seen.size, written: rows.length, zeroed,
    ms: Math.round(done - started), readMs: Math.round(read - started), writeMs: Math.round(stored - read), countMs: Math.round(done - stored),
  };
}

export type HoldersRunResult = { skipped: true } | { skipped: false; coins: number; failed: number; ms: number };

/**
 * Reconciles these coins (default: every platform coin) one after the other, holding the
 * lock; a coin that fails is logged and the others go on. Skipped when another process runs.
 */
export async function reconcileHolders(deps: HolderReconcileDeps, mints?: readonly string[]): Promise<HoldersRunResult> {
  const run = await withAdvisoryLock(deps.sql, LOCKS.holdersReconcile, async () => {
    const started = performance.now();
    const coins = await platformCoins(deps.sql, mints);
    let failed = 0;
    for (const mint of coins) {
      try {
        const r = await reconcileCoinHolders(deps, mint);
        deps.log.debug("holders reconciled", r);
      } catch (err) {
        failed++;
        deps.log.error("holder reconciliation of a coin failed; nothing written for it", { mint, error: String(err) });
      }
    }
    return { coins: coins.length, failed, ms: Math.round(performance.now() - started) };
  });
  return run.skipped ? { skipped: true } : { skipped: false, ...run.value };
}

/** The platform's coins (known pools), or those of `mints` that are. */
async function platformCoins(sql: Sql, mints?: readonly string[]): Promise<string[]> {
  const rows = mints
    ? await sql<{ mint: string }[]>`SELECT DISTINCT mint FROM platform_pools WHERE mint = ANY(${[...mints]}::text[]) ORDER BY mint`
    : await sql<{ mint: string }[]>`SELECT DISTINCT mint FROM platform_pools ORDER BY mint`;
  return rows.map((r) => r.mint);
}

export type HolderReconciler = {
  /** coins whose missed transactions were healed: reconciled soon (once the lock is free) */
  afterGaps(mints: readonly string[]): void;
  /** resolves once the runs asked for so far are done (tests) */
  settled(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Every `everyMinutes` (0 = no schedule) every platform coin; and the coins `afterGaps`
 * names, together, as soon as no run holds the lock (retried every `retryMs` while another
 * process holds it).
 */
export function scheduleHolderReconciliation(deps: HolderReconcileDeps, o: { everyMinutes: number; retryMs?: number }): HolderReconciler {
  const gaps = new Set<string>();
  let chain: Promise<unknown> = Promise.resolve();
  let retry: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const enqueue = (job: () => Promise<unknown>) => (chain = chain.then(job).catch((err) => deps.log.warn("holder reconciliation failed", { error: String(err) })));

  const full = o.everyMinutes > 0 ? setInterval(() => void enqueue(async () => {
    const r = await reconcileHolders(deps);
    if (!r.skipped) deps.log.info("holder reconciliation done", r);
  }), o.everyMinutes * 60_000) : null;
  full?.unref?.();

  const drainGaps = () =>
    enqueue(async () => {
      if (stopped || gaps.size === 0) return;
      const mints = [...gaps];
      gaps.clear();
      const r = await reconcileHolders(deps, mints);
      if (r.skipped) {
        for (const m of mints) gaps.add(m);
        if (!retry && !stopped) {
          retry = setTimeout(() => ((retry = null), void drainGaps()), o.retryMs ?? 30_000);
          retry.unref?.();
        }
      } else deps.log.info("holders reconciled after healed gaps", r);
    });

  return {
    afterGaps(mints) {
      if (stopped || mints.length === 0) return;
      for (const m of mints) gaps.add(m);
      void drainGaps();
    },
    settled: () => chain.then(() => undefined),
    async stop() {
      stopped = true;
      if (full) clearInterval(full);
      if (retry) clearTimeout(retry);
      await chain;
    },
  };
}
