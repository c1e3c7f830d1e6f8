/**
 * The platform's fee distribution as a scheduled job of the `agents` process (and `npm
 * start`): a node-cron tick every 15 s, run by one process at a time (advisory lock), that
 *
 * 1. moves open runs whose batches settled without their handler (run.ts `advanceRuns`);
 * 2. starts a run when FEE_DISTRIBUTION_MINUTES have passed since this treasury's last one
 *    (read from Postgres, so a restart neither skips nor repeats one) and none is open;
 * 3. starts a platform-token buyback when the budget allows (platform-buyback.ts: on its
 *    platform pool, or through Jupiter when the token is not a platform coin).
 *
 * The transactions themselves are the payment executor's (agents/treasury/executor.ts),
 * signed with the treasury key (infra/treasury-key.ts).
 */
import { schedule } from "node-cron";
import type { Sql } from "../../../infra/postgres";
import type { Logger } from "../../../infra/log";
import type { SolanaRpc } from "../../../infra/solana-rpc";
import type { ConfigRegistry } from "../../../ingest/contract/configs";
import { LOCKS, withAdvisoryLock } from "../../../infra/advisory-lock";
import { claimedConfigs } from "./claims";
import { advanceRuns, startRun } from "./run";
import { startPlatformBuyback } from "./platform-buyback";
import type { Split } from "./split";
import type { JupiterClient } from "../../swaps/jupiter";

export type FeeDistributionDeps = {
  sql: Sql;
  rpc: SolanaRpc;
  configs: ConfigRegistry;
  log: Logger;
  /** the treasury's address (the key the executor signs its batches with) */
  treasury: string;
  split: Split;
  /** minutes between two runs (FEE_DISTRIBUTION_MINUTES, > 0) */
  minutes: number;
  platformTokenMint: string | null;
  /** buys the platform token when it is not a platform coin (JUPITER_SWAP_URL); null = such a token's budget waits */
  jupiter?: JupiterClient | null;
};

/** Whether this treasury's last run started at least `minutes` ago (or it never ran). */
async function runDue(sql: Sql, treasury: string, minutes: number): Promise<boolean> {
  const [r] = await sql<{ due: boolean }[]>`
    SELECT COALESCE(max(started_at) <= now() - make_interval(mins => ${minutes}), true) AS due FROM fee_distributions WHERE treasury = ${treasury}`;
  return r!.due;
}

/** One tick (under the lock): what the job does every 15 s. */
export async function feeDistributionTick(deps: FeeDistributionDeps): Promise<void> {
  await advanceRuns(deps.sql, deps.split);
  if (await runDue(deps.sql, deps.treasury, deps.minutes)) await startRun(deps, deps.treasury);
  if (deps.platformTokenMint) await startPlatformBuyback(deps, { treasury: deps.treasury, mint: deps.platformTokenMint });
}

export function scheduleFeeDistribution(deps: FeeDistributionDeps): { stop(): void } {
  if (claimedConfigs(deps.configs, deps.treasury).length === 0)
    deps.log.warn("the treasury key is the fee claimer of no SOL-quoted platform config: nothing to claim", { treasury: deps.treasury, configs: deps.configs.all.map((c) => c.address) });
  const task = schedule(
    "*/15 * * * * *",
    () =>
      withAdvisoryLock(deps.sql, LOCKS.feeDistribution, () => feeDistributionTick(deps)).then(
        () => undefined,
        (err) => deps.log.warn("fee distribution tick failed", { err: (err as Error).message }),
      ),
    { name: "fee-distribution", noOverlap: true },
  );
  return { stop: () => void task.stop() };
}
