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
import { buildStorage, treasuryOf } from "./storage";
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
import { createAuth, createAuthService, type AuthRouteDeps } from "../api/auth";
import type { MeRouteDeps } from "../api/me";
import { createBalanceReader } from "../api/me/wallet";
import type { DaemonRouteDeps } from "../api/daemons";
import type { ContestRouteDeps } from "../api/contests";
import { contestDeps } from "./contests";
import type { TreasuryRouteDeps } from "../api/treasury";
import { airdropActions } from "../agents/treasury/airdrops/service";
import type { Authenticate } from "../api/daemons/operator";
import type { Firewall } from "../api/firewall/firewall";
import { startAgentRuntime } from "../agents/runtime";
import { dataApiMarket } from "../agents/runtime/market";
import { createStdoutRelay, type RelayOptions } from "../api/realtime/relay";
import { createHub, DEFAULT_FRAME_BUDGET } from "../api/realtime/hub";
import type { RealtimeRouteDeps } from "../api/realtime";
import { cachedTokenSupply } from "../api/app-public/token-supply";
import { PublicKey } from "@solana/web3.js";
import type { BuybackRouteDeps } from "../api/treasury/buybacks";
import { buybackActions } from "../agents/treasury/buybacks/service";
import { buybackDeps } from "./treasury";

export type Engines = { ch: ClickHouse; sql: Sql };

/** The Launch API: its service (state machine), route deps and media store. Needs SOLANA_RPC_URL and VAULT_ENCRYPTION_KEY to build launches. */
export function launchPlatform(config: Config, engines: Engines, configs: ConfigRegistry, rpc: SolanaRpc | null, log: Logger) {
  const firewall = loadFirewall(config.launch.firewallRulesFile);
  const media = createMediaStore({ dir: join(config.dataDir, "media"), apiBaseUrl: config.apiBaseUrl, pin: config.launch.pin, ipfsGateway: config.ipfsGateway });
  const chain = rpc ? createLaunchChain(rpc.connection) : null;
  const service = createLaunchService({
    sql: engines.sql,
    log: log.child({ stage: "launches" }),
    configs,
    firewall,
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
  return { service, routes, media, chain, firewall };
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
  opts: { responseCache?: boolean; boardRefreshMs?: number; rpc?: SolanaRpc | null } = {},
): DataApiDeps {
  const rpc = opts.rpc ?? null;
  return {
    ...engines,
    treasury: {
      address: config.treasuryAddress,
      platformTokenMint: config.tokenomics.platformTokenMint,
      split: config.tokenomics.split,
      tokenSupply: rpc ? cachedTokenSupply(async (mint) => BigInt((await rpc.connection.getTokenSupply(new PublicKey(mint))).value.amount)) : null,
    },
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

/**
 * Wallet sign-in and the signed-in account: the sign-in routes, /v1/me, and `auth` (who
 * calls) for any route that needs the caller's wallet. `now`: tests move the clock.
 */
export function signInApiDeps(config: Config, engines: Engines, rpc: SolanaRpc | null, log: Logger, data: DataApiDeps, o: { now?: () => Date } = {}) {
  const a = config.auth;
  const service = createAuthService({
    sql: engines.sql,
    log: log.child({ stage: "auth" }),
    settings: { domain: a.domain, uri: a.uri, chainId: config.cluster, accessTtlMs: a.accessTtlMs, refreshTtlMs: a.refreshTtlMs },
    now: o.now,
  });
  const auth = createAuth(service);
  const routes: AuthRouteDeps = {
    service,
    nonceLimiter: a.nonceRatePerMinute > 0 ? createClientLimiter({ perMinute: a.nonceRatePerMinute, burst: a.nonceRatePerMinute }) : null,
    clientOf: data.clientOf,
    budget: data,
  };
  const wallet = rpc ? createBalanceReader({ read: async (address) => BigInt((await rpc.getAccountInfos([address]))[0]?.lamports ?? 0) }) : null;
  const me: MeRouteDeps = { auth, data, wallet, log: log.child({ stage: "me" }), budget: data };
  return { auth, routes, me };
}

/**
 * The daemon routes' `authenticate` in production: the signed-in wallet, or the sign-in's
 * own 401 (TOKEN_EXPIRED, TOKEN_REVOKED, ...), so a client there learns to refresh as on /me.
 */
const signedInOrWhyNot = (auth: { requireSignedIn(request: Request): Promise<{ address: string }> }): Authenticate => async (request) => ({
  address: (await auth.requireSignedIn(request)).address,
});

/** The daemon surface: the Data API's engines, cache, price and client budget; the launches' safety filter; who is signed in (api/auth's `authenticate`). */
export function daemonApiDeps(config: Config, data: DataApiDeps, firewall: Firewall, configs: ConfigRegistry, log: Logger, authenticate: Authenticate): DaemonRouteDeps {
  return {
    sql: data.sql,
    price: data.price,
    models: config.models,
    firewall,
    authenticate,
    log: log.child({ stage: "daemons" }),
    onAgentChanged: (mint) => refreshDirectory(data.sql, data.ch, configs, [mint]),
    cache: data.cache,
    limiter: data.limiter,
    clientOf: data.clientOf,
  };
}

/** Contests: the daemon surface's cache, budget and sign-in, the treasury core (compose/contests.ts). */
export function contestApiDeps(daemons: DaemonRouteDeps, ch: ClickHouse, configs: ConfigRegistry, rpc: SolanaRpc | null, log: Logger): ContestRouteDeps {
  return {
    ...contestDeps({ sql: daemons.sql, ch }, configs, daemons.firewall, log, rpc !== null),
    cache: daemons.cache,
    limiter: daemons.limiter,
    clientOf: daemons.clientOf,
    authenticate: daemons.authenticate,
  };
}

/** Buybacks (/v1/daemons/:mint/buybacks): the daemon routes' engines, cache, budget and sign-in; the treasury core's buyback service. */
export function buybackApiDeps(daemons: DaemonRouteDeps, engines: Engines, configs: ConfigRegistry, rpc: SolanaRpc | null, log: Logger): BuybackRouteDeps {
  return {
    sql: daemons.sql,
    cache: daemons.cache,
    authenticate: daemons.authenticate,
    limiter: daemons.limiter,
    clientOf: daemons.clientOf,
    buybacks: buybackActions(buybackDeps({ ...engines, log: log.child({ stage: "buybacks" }), rpc, configs })),
  };
}

/** Treasury actions' routes (airdrops): the Data API's engines, cache and client budget, the chain for snapshots, who is signed in. */
export function treasuryApiDeps(data: DataApiDeps, configs: ConfigRegistry, rpc: SolanaRpc | null, log: Logger, authenticate: Authenticate): TreasuryRouteDeps {
  const airdrops = airdropActions({ sql: data.sql, ch: data.ch, rpc, configs, log: log.child({ stage: "treasury" }) });
  return { sql: data.sql, authenticate, airdrops, cache: data.cache, limiter: data.limiter, clientOf: data.clientOf };
}

/**
 * The realtime channel (/v1/ws): this process's sockets (the hub) and its relay, which LISTENs on
 * `listenUrl` (the Postgres the lines are written to) over a connection of its own, opened when
 * the first agent topic is subscribed. Every process that serves the API runs one: any replica
 * serves any topic. The price topic follows this process's own SOL price service.
 */
export function realtimePlatform(config: Config, data: DataApiDeps, listenUrl: string, log: Logger, o: { relay?: Partial<RelayOptions>; priceEveryMs?: number } = {}) {
  const hubLog = log.child({ stage: "realtime" });
  let hub: ReturnType<typeof createHub> | null = null;
  const relay = createStdoutRelay({ url: listenUrl, sql: data.sql, log: hubLog, deliver: (row) => hub?.deliverLine(row), ...o.relay });
  hub = createHub({
    sql: data.sql,
    relay,
    price: data.price,
    log: hubLog,
    limits: { ...DEFAULT_FRAME_BUDGET, maxTopicsPerSocket: config.realtime.maxTopicsPerSocket, maxSocketsPerClient: config.realtime.maxSocketsPerClient },
    priceEveryMs: o.priceEveryMs,
  });
  const routes: RealtimeRouteDeps = { hub, clientOf: data.clientOf ?? clientAddressOf(config.dataApi.trustedProxies) };
  return {
    routes,
    hub,
    relay,
    async stop() {
      hub!.stop();
      await relay.stop();
    },
  };
}
export type RealtimePlatform = ReturnType<typeof realtimePlatform>;

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
  /** who is signed in on the daemon surface (tests pass a test authenticator); default: the wallet sign-in (api/auth) */
  authenticate?: Authenticate;
  /** the Postgres URL the realtime channel LISTENs on; none = no /v1/ws */
  listenUrl?: string;
  /** tests: the realtime relay's reconnect delay and the price poll */
  realtime?: Parameters<typeof realtimePlatform>[4];
}) {
  const { config, log, engines, configs } = opts;
  const { registry, addressSync, metrics, consumerStats, sink, bus, holders } = await buildStorage(engines, configs, log, { bus: opts.bus, consumer: !!opts.bus, addressSync: config, parkedMaxAgeMs: config.parkedFactsMaxAgeHours * 3_600_000, treasury: treasuryOf(config) });
  // decode only the balance facts the pipelines can use, following the coins as pools appear
  const decoder = createDecodePool(opts.decodeWorkers ?? config.decodeWorkers, { scope: registry.factScope() });
  registry.onNewPool((pool) => decoder.learnCoins([pool.mint]));
  const price = opts.price ?? createSolPriceService(priceSources(config, opts.rpc ?? null), log.child({ stage: "price" }));
  const launches = launchPlatform(config, engines, configs, opts.rpc ?? null, log);
  const data = dataApiDeps(config, engines, configs, price, { ...opts, rpc: opts.rpc ?? null });
  const signIn = signInApiDeps(config, engines, opts.rpc ?? null, log, data);
  const realtime = opts.listenUrl ? realtimePlatform(config, data, opts.listenUrl, log, opts.realtime) : null;
  const daemons = daemonApiDeps(config, data, launches.firewall, configs, log, opts.authenticate ?? signedInOrWhyNot(signIn.auth));
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
    auth: signIn.routes,
    me: signIn.me,
    daemons,
    contests: contestApiDeps(daemons, engines.ch, configs, opts.rpc ?? null, log),
    treasury: treasuryApiDeps(data, configs, opts.rpc ?? null, log, daemons.authenticate),
    buybacks: buybackApiDeps(daemons, engines, configs, opts.rpc ?? null, log),
    realtime: realtime?.routes ?? null,
  });
  return { app, bus, sink, metrics, consumerStats, registry, price, decoder, launches, addressSync, auth: signIn.auth, holders, realtime };
}

/**
 * The agent runtime of a process (agents/runtime/): its market facts from the Data API's
 * reads, the platform's firewall, and state moves mirrored into the ClickHouse directory.
 */
export function startRuntime(config: Config, engines: Engines, configs: ConfigRegistry, price: SolPriceService, log: Logger, o: { simulated: boolean }) {
  const market = dataApiMarket({ ch: engines.ch, sql: engines.sql, configs, price, publicBaseUrl: config.publicBaseUrl, board: createMarketBoard(engines.ch, 10_000) });
  return startAgentRuntime({
    config,
    sql: engines.sql,
    ch: engines.ch,
    log,
    firewall: loadFirewall(config.launch.firewallRulesFile),
    market,
    solUsd: async () => ((await price.current()) ?? price.lastKnown())?.usd ?? null,
    simulated: o.simulated,
    onAgentsChanged: (mints) => refreshDirectory(engines.sql, engines.ch, configs, mints),
  });
}
