/**
 * The pipelines' stores as every process that writes builds them: the pool registry, the
 * fact sink, the holder counter it feeds, and the in-process bus straight to it (or the given Kafka bus). The all-in-one
 * platform, the pipelines process, the backfill without Kafka and the tests' simulated
 * chains all build through here, so they store alike.
 */
import type { Config } from "../infra/config";
import type { Logger } from "../infra/log";
import { treasuryAddresses, type ConfigRegistry } from "../ingest/contract/configs";
import { PoolRegistry, type TreasuryConfig } from "../pipelines/platform/registry";
import { createFactSink } from "../pipelines/sink";
import { createInProcessBus, type Bus } from "../pipelines/bus";
import { createMetrics, watchConsumer } from "../pipelines/metrics";
import type { ConsumerStats } from "../pipelines/kafka/consumer";
import { syncOnGraduation, webhookAddressSync } from "../ingest/helius/address-sync-runner";
import { storedSignatures } from "./stored";
import { createHolderCounter } from "../pipelines/holders/counter";
import type { Engines } from "./wiring";

export async function buildStorage(
  engines: Engines,
  configs: ConfigRegistry,
  log: Logger,
  opts: {
    /** the Kafka bus in scaled mode; default: in-process, straight to the sink */
    bus?: Bus;
    /** a Kafka consumer feeds the sink: its stats go into the metrics */
    consumer?: boolean;
    /** keep the Helius webhook's addresses in step with graduations (off unless HELIUS_API_KEY and HELIUS_WEBHOOK_ID are set) */
    addressSync?: Config;
    /** how long a parked fact may wait for its pool or coin (PARKED_FACTS_MAX_AGE_HOURS); default 7 days */
    parkedMaxAgeMs?: number;
    /** TREASURY_ADDRESS and PLATFORM_TOKEN_MINT (`treasuryOf(config)`); default: the configs' fee claimers are the treasury, no platform token */
    treasury?: TreasuryConfig;
  } = {},
) {
  const registry = await PoolRegistry.load(engines.sql, configs, opts.treasury);
  const addressSync = opts.addressSync
    ? webhookAddressSync({
        config: opts.addressSync,
        sql: engines.sql,
        configs: configs.all.map((c) => c.address),
        treasury: treasuryAddresses(configs, opts.addressSync.treasuryAddress),
        log: log.child({ stage: "helius-sync" }),
      })
    : null;
  if (addressSync) syncOnGraduation(registry, addressSync);
  const metrics = createMetrics();
  const consumerStats: ConsumerStats = { batches: 0, messages: 0, deadLetters: 0, lag: 0 };
  if (opts.consumer) watchConsumer(metrics, consumerStats);
  // holder counts follow the balances this process stores (pipelines/holders/)
  const holders = createHolderCounter({ ch: engines.ch, log: log.child({ stage: "holders" }) });
  const sink = createFactSink({ ...engines, registry, metrics, log: log.child({ stage: "sink" }), parkedMaxAgeMs: opts.parkedMaxAgeMs, onBalances: holders.changed });
  holders.countUncounted().catch((err: unknown) => log.warn("could not look for coins without a holder count", { error: String(err) }));
  const bus = opts.bus ?? createInProcessBus(sink);
  return { registry, addressSync, metrics, consumerStats, sink, bus, holders, stored: storedSignatures(engines) };
}
export type Storage = Awaited<ReturnType<typeof buildStorage>>;

/** What the pipelines need to know of the treasury from the configuration. */
export function treasuryOf(config: Config): TreasuryConfig {
  return { treasuryAddress: config.treasuryAddress, platformTokenMint: config.tokenomics.platformTokenMint };
}
