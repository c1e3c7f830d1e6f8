/**
 * The treasury actions' composition: the builders the payment executor may use
 * (agents/treasury/builders.ts), the owners it tells when batches settle
 * (agents/treasury/owners.ts), and the executor itself, run by the `agents` process and
 * `npm start` when a chain is configured. Each action adds its line to the registries here.
 */
import type { Keypair } from "@solana/web3.js";
import type { Builder } from "../agents/treasury/builders";
import { builderRegistry } from "../agents/treasury/builders";
import { ownerRegistry, type OwnerHandlers } from "../agents/treasury/owners";
import { startPaymentExecutor } from "../agents/treasury/executor";
import { airdropOwner } from "../agents/treasury/airdrops/settle";
import { executeApprovedAirdrops } from "../agents/treasury/airdrops/proposals";
import type { ConfigRegistry } from "../ingest/contract/configs";
import type { Config } from "../infra/config";
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import type { SolanaRpc } from "../infra/solana-rpc";
import { createLaunchChain } from "../infra/solana-tx/chain";

export type TreasuryOwnerDeps = { sql: Sql; ch: ClickHouse; log: Logger; rpc: SolanaRpc | null; configs: ConfigRegistry };

/** Builders beyond the built-in 'transfers' (buybacks' swaps and burns, fee claims, ...). */
export function treasuryBuilders() {
  const extra: Record<string, Builder> = {};
  return builderRegistry(extra);
}

/** Settlement handlers per owner kind. */
export function treasuryOwners(deps: TreasuryOwnerDeps) {
  const handlers: Record<string, OwnerHandlers> = {
    airdrop: airdropOwner({ ...deps, beforeTurn: async () => void (await executeApprovedAirdrops(deps)) }),
  };
  return ownerRegistry(handlers);
}

/** The payment executor of this process; null without a chain (nothing can be paid). */
export function startTreasuryExecutor(
  config: Config,
  engines: { sql: Sql; ch: ClickHouse },
  configs: ConfigRegistry,
  rpc: SolanaRpc | null,
  log: Logger,
  o: { treasuryKey?: () => Keypair | null } = {},
) {
  if (!rpc) return null;
  const elog = log.child({ stage: "treasury-executor" });
  return startPaymentExecutor({
    sql: engines.sql,
    chain: createLaunchChain(rpc.connection),
    connection: rpc.connection,
    builders: treasuryBuilders(),
    owners: treasuryOwners({ ...engines, log: elog, rpc, configs }),
    signers: { sql: engines.sql, vaultEncryptionKey: config.launch.vaultEncryptionKey, treasuryKey: o.treasuryKey },
    log: elog,
    options: { intervalMs: config.treasuryExecutor.intervalMs, leaseSeconds: config.treasuryExecutor.leaseSeconds, crashAt: config.treasuryExecutor.crashAt },
  });
}
