/**
 * The agents' background work that follows the chain: vault balances (their
 * `budget.wallet`), coin metadata of coins found on-chain, and the launch tracker
 * that turns confirmed launches into agents, and the SOL price history (the current price
 * written to ClickHouse once a minute, infra/sol-price/history.ts). Run by the all-in-one process and by
 * the `agents` process; each job runs once at a time (noOverlap), and the tracker
 * once across processes (advisory lock). The contest job (`contests/job.ts`, every 5 s with
 * SOLANA_RPC_URL) ends, draws and publishes contests, also once across processes.
 */
import { schedule, type ScheduledTask } from "node-cron";
import type { Config } from "../infra/config";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import type { SolanaRpc } from "../infra/solana-rpc";
import { refreshWalletBalances, USDC_MINT } from "./wallets";
import { refreshCoinMetadata, type CoinMetadataResolver } from "./metadata";
import { scheduleLaunchTracker } from "./launch-tracker";
import type { ClickHouse } from "../infra/clickhouse/client";
import type { SolPriceService } from "../infra/sol-price";
import { recordSolPrice } from "../infra/sol-price/history";
import { runContestsOnce, type ContestJobDeps } from "./contests/job";

/** What the launch tracker needs of the Launch API (the composition root builds it); no chain: no tracker. */
type TrackerDeps = Parameters<typeof scheduleLaunchTracker>[0];
export type LaunchTracking = { chain: TrackerDeps["chain"] | null; service: TrackerDeps["service"] };

export type BackgroundJobs = { names: string[]; stop(): void };

export function startAgentBackground(o: {
  config: Config;
  sql: Sql;
  rpc: SolanaRpc | null;
  log: Logger;
  launches: LaunchTracking;
  /** simulated coins have metadata URIs that point nowhere: the job runs only with `metadataResolver` */
  simulated: boolean;
  /** resolves coin metadata instead of fetching it (the simulator's coins) */
  metadataResolver?: CoinMetadataResolver;
  /** records the SOL price of each minute (every process running these jobs writes; the table keeps one row per minute) */
  priceHistory?: { ch: ClickHouse; price: SolPriceService; simulated?: boolean };
  /** the contest job (agents/contests/job.ts); needs the chain, so none without SOLANA_RPC_URL */
  contests?: ContestJobDeps | null;
}): BackgroundJobs {
  const { config, sql, rpc, log } = o;
  const tasks: { name: string; task: ScheduledTask }[] = [];
  const every = (name: string, expression: string, job: () => Promise<unknown>) =>
    tasks.push({
      name,
      task: schedule(expression, () => job().then(() => undefined, (err) => log.warn(`${name} failed`, { err: (err as Error).message })), { name, noOverlap: true }),
    });

  if (rpc)
    every("vault-balances", "*/30 * * * * *", () =>
      refreshWalletBalances({ sql, readAccounts: rpc.getAccountInfos, usdcMint: USDC_MINT[config.cluster], maxAgeSeconds: config.walletCacheSeconds, log }),
    );
  if (!o.simulated || o.metadataResolver)
    every("coin-metadata", "*/15 * * * * *", () =>
      refreshCoinMetadata({
        sql,
        log,
        resolve: o.metadataResolver,
        options: { maxBytes: 256 * 1024, timeoutMs: 5000, allowLoopback: config.allowLoopbackFetch, ipfsGateway: config.ipfsGateway },
      }),
    );
  const history = o.priceHistory;
  if (history)
    every("sol-price-history", "1 * * * * *", async () => {
      if (!(await recordSolPrice(history))) log.warn("sol-price-history: no SOL price source answered; this minute stays a gap");
    });
  const contests = o.contests;
  if (contests) every("contests", "*/5 * * * * *", () => runContestsOnce(contests));
  if (o.launches.chain) tasks.push({ name: "launch-tracker", task: scheduleLaunchTracker({ sql, chain: o.launches.chain, service: o.launches.service, log: log.child({ stage: "launch-tracker" }) }) });
  return { names: tasks.map((t) => t.name), stop: () => tasks.forEach((t) => t.task.stop()) };
}
