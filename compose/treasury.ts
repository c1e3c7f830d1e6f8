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
import { startPaymentExecutor, type ExecutorDeps } from "../agents/treasury/executor";
import { airdropOwner } from "../agents/treasury/airdrops/settle";
import { executeApprovedAirdrops } from "../agents/treasury/airdrops/proposals";
import type { ConfigRegistry } from "../ingest/contract/configs";
import type { Config } from "../infra/config";
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import type { SolanaRpc } from "../infra/solana-rpc";
import { createLaunchChain } from "../infra/solana-tx/chain";
import { contestOwner } from "../agents/contests/settle";
import { createPoolReader } from "../api/pools/chain";
import { buybackBuilders } from "../agents/treasury/buybacks/builders";
import { buybackOwner } from "../agents/treasury/buybacks/settle";
import { executeApprovedBuybacks } from "../agents/treasury/buybacks/proposals";
import type { BuybackDeps } from "../agents/treasury/buybacks/service";
import { claimBuilders } from "../agents/treasury/fee-distribution/claims";
import { FEE_CLAIM, FEE_PAYOUT, feeClaimOwner, feePayoutOwner } from "../agents/treasury/fee-distribution/run";
import { PLATFORM_BUYBACK, platformBuybackOwner } from "../agents/treasury/fee-distribution/platform-buyback";
import type { Split } from "../agents/treasury/fee-distribution/split";
import { scheduleFeeDistribution } from "../agents/treasury/fee-distribution/job";
import { jupiterBuilders } from "../agents/treasury/fee-distribution/jupiter-swap";
import { createJupiterClient, type JupiterClient } from "../agents/swaps/jupiter";
import { loadTreasurySigner } from "../infra/treasury-key";
import type * as v from "valibot";
import type { AIRDROP_OWNER, listAirdrops, previewAirdrop } from "../agents/treasury/airdrops/service";
import type { AIRDROP_PAYOUT_OWNER } from "../api/app-public/action-payouts";
import type { buybackView } from "../agents/treasury/buybacks/service";
import type { batchView } from "../agents/treasury/batches";
import type { Airdrop, AirdropPreview, Buyback } from "../api/treasury/responses";
import type { PaymentBatch } from "../api/openapi/treasury";

export type TreasuryOwnerDeps = { sql: Sql; ch: ClickHouse; log: Logger; rpc: SolanaRpc | null; configs: ConfigRegistry; split: Split };

/** Builders beyond the built-in 'transfers' (buybacks' swaps and burns, fee claims, the platform token's Jupiter swap when given a client, ...). */
export function treasuryBuilders(deps: { sql: Sql; configs: ConfigRegistry; log: Logger; jupiter?: JupiterClient | null }) {
  const extra: Record<string, Builder> = { ...buybackBuilders(deps), ...claimBuilders, ...(deps.jupiter ? jupiterBuilders(deps.jupiter) : {}) };
  return builderRegistry(extra);
}

/** What buybacks need: the engines, and the coin's pool read over RPC (none: 503). */
export const buybackDeps = (deps: { sql: Sql; ch: ClickHouse; log: Logger; rpc: SolanaRpc | null; configs: ConfigRegistry }): BuybackDeps => ({
  sql: deps.sql,
  ch: deps.ch,
  log: deps.log,
  pools: { sql: deps.sql, configs: deps.configs, reader: deps.rpc ? createPoolReader({ read: deps.rpc.getAccountsAtSlot }) : null, log: deps.log },
});

/** Settlement handlers per owner kind. */
export function treasuryOwners(deps: TreasuryOwnerDeps) {
  const handlers: Record<string, OwnerHandlers> = {
    airdrop: airdropOwner({ ...deps, beforeTurn: async () => void (await executeApprovedAirdrops(deps)) }),
    contest: contestOwner(deps),
    buyback: { ...buybackOwner(deps), beforeTurn: async () => void (await executeApprovedBuybacks(buybackDeps(deps))) },
    [FEE_CLAIM]: feeClaimOwner(deps.split),
    [FEE_PAYOUT]: feePayoutOwner,
    [PLATFORM_BUYBACK]: platformBuybackOwner,
  };
  return ownerRegistry(handlers);
}

/** What the payment executor runs with (tests run its turns with these). */
export function treasuryExecutorDeps(
  config: Config,
  engines: { sql: Sql; ch: ClickHouse },
  configs: ConfigRegistry,
  rpc: SolanaRpc,
  log: Logger,
  o: { treasuryKey?: () => Keypair | null } = {},
): ExecutorDeps {
  const elog = log.child({ stage: "treasury-executor" });
  return {
    sql: engines.sql,
    chain: createLaunchChain(rpc.connection),
    connection: rpc.connection,
    builders: treasuryBuilders({ sql: engines.sql, configs, log: elog, jupiter: createJupiterClient({ url: config.jupiter.swapUrl, apiKey: config.jupiter.apiKey }) }),
    owners: treasuryOwners({ ...engines, log: elog, rpc, configs, split: config.tokenomics.split }),
    signers: { sql: engines.sql, vaultEncryptionKey: config.launch.vaultEncryptionKey, treasuryKey: o.treasuryKey },
    log: elog,
    options: { intervalMs: config.treasuryExecutor.intervalMs, leaseSeconds: config.treasuryExecutor.leaseSeconds, crashAt: config.treasuryExecutor.crashAt },
  };
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
  return startPaymentExecutor(treasuryExecutorDeps(config, engines, configs, rpc, log, o));
}

/**
 * The platform treasury of this process: its key (TREASURY_SECRET_KEY sealed into Postgres,
 * or the one sealed there before: infra/treasury-key.ts), handed to the executor as
 * `treasuryKey`, and, with a chain, the key and FEE_DISTRIBUTION_MINUTES > 0, the fee
 * distribution's job (agents/treasury/fee-distribution/job.ts), with Jupiter's Swap API
 * (JUPITER_SWAP_URL) for a platform token that is not a platform coin.
 */
export async function startPlatformTreasury(config: Config, engines: { sql: Sql }, configs: ConfigRegistry, rpc: SolanaRpc | null, log: Logger) {
  const tlog = log.child({ stage: "fee-distribution" });
  const signer = await loadTreasurySigner({ sql: engines.sql, secret: config.treasurySecretKey, encryptionKey: config.launch.vaultEncryptionKey, log: tlog });
  const job =
    signer && rpc && config.feeDistributionMinutes > 0
      ? scheduleFeeDistribution({
          sql: engines.sql,
          rpc,
          configs,
          log: tlog,
          treasury: signer.address,
          split: config.tokenomics.split,
          minutes: config.feeDistributionMinutes,
          platformTokenMint: config.tokenomics.platformTokenMint,
          jupiter: createJupiterClient({ url: config.jupiter.swapUrl, apiKey: config.jupiter.apiKey }),
        })
      : null;
  if (signer) tlog.info("platform treasury", { treasury: signer.address, feeDistribution: job ? `every ${config.feeDistributionMinutes} minutes` : "off" });
  return { treasuryKey: () => signer?.keypair() ?? null, stop: () => job?.stop() };
}

// What the API documents of airdrops, buybacks and their payments (api/treasury/responses.ts, api/openapi/treasury.ts) is
// what the treasury core answers: api/ does not import agents/, so the types are held together here (as compose/contests.ts).
({}) as Awaited<ReturnType<typeof previewAirdrop>> satisfies v.InferOutput<typeof AirdropPreview>;
({}) as Awaited<ReturnType<typeof listAirdrops>>["items"][number] satisfies v.InferOutput<typeof Airdrop>;
({}) as ReturnType<typeof batchView> satisfies v.InferOutput<typeof PaymentBatch>;
({}) as ReturnType<typeof buybackView> satisfies v.InferOutput<typeof Buyback>;
// the overview's recent payouts read airdrops' batches by their owner kind
({}) as typeof AIRDROP_OWNER satisfies typeof AIRDROP_PAYOUT_OWNER;
