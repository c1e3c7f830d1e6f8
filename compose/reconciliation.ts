/** Reconciliation as the all-in-one and pipelines processes schedule it. */
import type { Config } from "../infra/config";
import type { Logger } from "../infra/log";
import type { Bus } from "../ingest/contract/bus";
import type { ConfigRegistry } from "../ingest/contract/configs";
import { scheduleReconciliation } from "../ingest/reconcile/reconcile";
import { createChainReader } from "../ingest/backfill/rpc";
import { storedSignatures } from "./stored";
import type { Engines } from "./wiring";

/**
 * Heals what the webhook missed: every two minutes re-reads recent signatures of every
 * platform address over SOLANA_RPC_URL and publishes what is not stored through `bus`
 * (one process at a time). Null without SOLANA_RPC_URL.
 */
export function startReconciliation(config: Config, engines: Engines, bus: Bus, configs: ConfigRegistry, log: Logger) {
  if (!config.rpcUrl) return null;
  return scheduleReconciliation({ ...engines, reader: createChainReader(config.rpcUrl), bus, stored: storedSignatures(engines), configs, treasuryAddress: config.treasuryAddress, log: log.child({ stage: "reconcile" }) });
}
