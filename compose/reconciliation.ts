/** Reconciliation (transactions, then holders) as the all-in-one and pipelines processes schedule it. */
import type { Config } from "../infra/config";
import type { Logger } from "../infra/log";
import type { Bus } from "../ingest/contract/bus";
import type { ConfigRegistry } from "../ingest/contract/configs";
import { scheduleReconciliation } from "../ingest/reconcile/reconcile";
import { createChainReader } from "../ingest/backfill/rpc";
import { storedSignatures } from "./stored";
import type { Engines } from "./wiring";
import type { SolanaRpc } from "../infra/solana-rpc";
import { scheduleHolderReconciliation, type HolderReconciler } from "../pipelines/holders/reconcile";

/**
 * Heals what the webhook missed: every two minutes re-reads recent signatures of every
 * platform address over SOLANA_RPC_URL and publishes what is not stored through `bus`
 * (one process at a time). Null without SOLANA_RPC_URL.
 */
export function startReconciliation(config: Config, engines: Engines, bus: Bus, configs: ConfigRegistry, log: Logger, holders?: HolderReconciler | null) {
  if (!config.rpcUrl) return null;
  return scheduleReconciliation({
    ...engines,
    reader: createChainReader(config.rpcUrl),
    bus,
    stored: storedSignatures(engines),
    configs,
    treasuryAddress: config.treasuryAddress,
    log: log.child({ stage: "reconcile" }),
    onHealed: holders ? (mints) => holders.afterGaps(mints) : undefined,
  });
}

/**
 * Holder reconciliation over SOLANA_RPC_URL: every HOLDERS_RECONCILE_MINUTES every platform
 * coin (0 = no schedule), and a coin whose missed transactions were healed. Null without a chain.
 */
export function startHolderReconciliation(config: Config, engines: Engines, rpc: SolanaRpc | null, log: Logger): HolderReconciler | null {
  if (!config.rpcUrl || !rpc) return null;
  return scheduleHolderReconciliation({ ...engines, rpc, log: log.child({ stage: "holders-reconcile" }) }, { everyMinutes: config.holdersReconcileMinutes });
}
