/**
 * Builds the all-in-one platform from engines that are already up: the sink, the
 * in-process bus (compose/storage.ts), the SOL price service and the HTTP app. main.ts and the
 * integration tests both use it, so tests run exactly what production runs.
 */
import type { Config } from "../infra/config";
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import type { ConfigRegistry } from "../ingest/contract/configs";
import type { Bus } from "../pipelines/bus";
import { buildStorage } from "./storage";
import { createSolPriceService, oracleSource, aggregatorSource, exchangeSource, simulatedSource, type PriceSource, type SolPriceService } from "../infra/sol-price";
import { createResponseCache } from "../api/public/cache";
import { createMarketBoard } from "../api/public/market-board";
import { createClientLimiter } from "../api/public/rate-limit";
import { clientAddressOf } from "../api/public/client-address";
import { createApp } from "../api/app";
import type { DataApiDeps } from "../api/public";
import type { SolanaRpc } from "../infra/solana-rpc";
import { createDecodePool } from "../ingest/helius/decode-pool";
import { join } from "node:path";
import { createMediaStore } from "../infra/media-store";
import { createLaunchChain } from "../infra/solana-tx/chain";
import { createLaunchService } from "../api/launches/service";
import { createApiKeyAuth } from "../api/launches/api-keys";
import { createRateLimiter } from "../api/launches/rate-limit";
import { loadFirewall } from "../api/firewall/firewall";
import type { LaunchRouteDeps } from "../api/launches";
import { refreshDirectory } from "../pipelines/agents-sink";
import { createPoolReader } from "../api/pools/chain";
import type { PoolRouteDeps } from "../api/pools";

export type Engines = { ch: ClickHouse; sql: Sql };

/** The Launch API: its service (state machine), route deps and media store. Needs SOLANA_RPC_URL and VAULT_ENCRYPTION_KEY to build launches. */
export function launchPlatform(config: Config, engines: Engines, configs: ConfigRegistry, rpc: SolanaRpc | null, log: Logger) {
  const media = createMediaStore({ dir: join(config.dataDir, "media"), apiBaseUrl: config.apiBaseUrl, pin: config.launch.pin, ipfsGateway: config.ipfsGateway });
  const chain = rpc ? createLaunchChain(rpc.connection) : null;
  const service = createLaunchService({
    sql: engines.sql,
    log: log.child({ stage: "launches" }),
    configs,
    firewall: loadFirewall(config.launch.firewallRulesFile),
    media,
    chain,
    connection: rpc?.connection ?? null,
    vaultEncryptionKey: config.launch.vaultEncryptionKey,
    publicBaseUrl: config.publicBaseUrl,
    allowLoopbackFetch: config.allowLoopbackFetch,
    submitWaitMs: config.launch.submitWaitMs,
    dailyQuota: config.launch.dailyQuota,
    priorityFeeMicroLamports: config.launch.priorityFeeMicroLamports,
    onAgentChanged: (mint) => refreshDirectory(engines.sql, engines.ch, configs, [mint]),
  });
  const routes: LaunchRouteDeps = { service, auth: createApiKeyAuth(engines.sql), limiter: createRateLimiter({ perMinute: config.launch.ratePerMinute }), configs };
  return { service, routes, media, chain };
}
export type LaunchPlatform = ReturnType<typeof launchPlatform>;

/**
 * The configured SOL/USD sources in order. With none configured and `simulator` (the
 * all-in-one process playing the simulator), the simulated price of that seed instead.
 */
export function priceSources(config: Config, rpc: SolanaRpc | null, o: { simulator?: boolean } = {}): PriceSource[] {
  const out: PriceSource[] = [];
  for (const name of config.price.sources) {
    if (name === "oracle" && rpc && config.price.oracleAccount)
      out.push(oracleSource(async (a) => (await rpc.getAccounts([a]))[0] ?? null, config.price.oracleAccount));
    if (name === "aggregator" && config.price.aggregatorUrl) out.push(aggregatorSource(config.price.aggregatorUrl));
    if (name === "exchange" && config.price.exchangeUrl) out.push(exchangeSource(config.price.exchangeUrl));
  }
  if (!out.length && o.simulator) out.push(simulatedSource(config.simulator.seed));
  return out;
}

/** Both engines answer (readiness). */
export async function enginesReady(engines: Engines): Promise<boolean> {
  return (await engines.ch.ping()) && (await engines.sql`SELECT 1`.then(() => true, () => false));
}

/** What the Data API reads from: the all-in-one process and the `api` process build it alike. */
export function dataApiDeps(
  config: Config,
  engines: Engines,
  configs: ConfigRegistry,
  price: SolPriceService,
  opts: { responseCache?: boolean; boardRefreshMs?: number } = {},
): DataApiDeps {
  return {
    ...engines,
    configs,
    price,
    publicBaseUrl: config.publicBaseUrl,
    cluster: config.cluster,
    cache: createResponseCache(opts.responseCache === false ? 0 : 5000),
    board: createMarketBoard(engines.ch, opts.boardRefreshMs ?? 5000),
    limiter: config.dataApi.ratePerMinute > 0 ? createClientLimiter({ perMinute: config.dataApi.ratePerMinute, burst: config.dataApi.rateBurst }) : null,
    clientOf: clientAddressOf(config.dataApi.trustedProxies),
    exportsPerClient: config.dataApi.exportsPerClient,
  };
}

/** Live pool state and quotes: the chain read through `rpc` (none: 503), the Data API's per-client budget shared. */
export function poolApiDeps(engines: Engines, configs: ConfigRegistry, rpc: SolanaRpc | null, log: Logger, data?: DataApiDeps): PoolRouteDeps {
  return {
    sql: engines.sql,
    configs,
    reader: rpc ? createPoolReader({ read: rpc.getAccountsAtSlot }) : null,
    log: log.child({ stage: "pools" }),
    limiter: data?.limiter ?? null,
    clientOf: data?.clientOf,
  };
}

export async function wirePlatform(opts: {
  config: Config;
  log: Logger;
  engines: Engines;
  configs: ConfigRegistry;
  webhookSecret: string | null;
  price?: SolPriceService;
  rpc?: SolanaRpc | null;
  responseCache?: boolean;
  /** how old the in-memory market board behind the agents list may get; 0 = always fresh */
  boardRefreshMs?: number;
  decodeWorkers?: number;
  /** the Kafka bus in scaled mode; default: in-process, straight to the sink */
  bus?: Bus;
}) {
  const { config, log, engines, configs } = opts;
  const { registry, addressSync, metrics, consumerStats, sink, bus } = await buildStorage(engines, configs, log, { bus: opts.bus, consumer: !!opts.bus, addressSync: config, parkedMaxAgeMs: config.parkedFactsMaxAgeHours * 3_600_000 });
  const decoder = createDecodePool(opts.decodeWorkers ?? config.decodeWorkers);
  const price = opts.price ?? createSolPriceService(priceSources(config, opts.rpc ?? null), log.child({ stage: "price" }));
  const launches = launchPlatform(config, engines, configs, opts.rpc ?? null, log);
  const data = dataApiDeps(config, engines, configs, price, opts);
  const app = createApp({
    log,
    ready: () => enginesReady(engines),
    registry: metrics.registry,
    metricsToken: config.metrics.token,
    data,
    ingest: { bus, decoder, webhookSecret: () => opts.webhookSecret, log: log.child({ stage: "webhook" }) },
    launches: launches.routes,
    media: launches.media,
    pools: poolApiDeps(engines, configs, opts.rpc ?? null, log, data),
  });
  return { app, bus, sink, metrics, consumerStats, registry, price, decoder, launches, addressSync };
}
