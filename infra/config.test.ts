import { describe, expect, test } from "bun:test";
import { loadConfig, ConfigError, parsePlatformConfigs } from "./config";

describe("config", () => {
  test("defaults are the embedded mode with the simulator", () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.databaseUrl).toBeNull();
    expect(c.clickhouseUrl).toBeNull();
    expect(c.cluster).toBe("mainnet");
    expect(c.simulator.enabled).toBe(true);
    expect(c.price.sources).toEqual(["oracle", "aggregator", "exchange"]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  test("PUBLIC_BASE_URL defaults to the port the service listens on", () => {
    expect(loadConfig({}).publicBaseUrl).toBe("http://localhost:3000");
    expect(loadConfig({ PORT: "8123" }).publicBaseUrl).toBe("http://localhost:8123");
    expect(loadConfig({ PORT: "8123", PUBLIC_BASE_URL: "https://coins.example/" }).publicBaseUrl).toBe("https://coins.example");
  });

  test("a chain turns the simulator off unless asked", () => {
    expect(loadConfig({ SOLANA_RPC_URL: "https://rpc.example" }).simulator.enabled).toBe(false);
    expect(loadConfig({ SOLANA_RPC_URL: "https://rpc.example", SIMULATOR: "on" }).simulator.enabled).toBe(true);
  });

  test("PLATFORM_CONFIGS parses launch, stock and legacy entries", () => {
    expect(
      parsePlatformConfigs(
        "launch:CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew, stock:TSLA:dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN,legacy:cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG",
      ),
    ).toEqual([
      { role: "launch", address: "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew", ticker: null },
      { role: "stock", address: "dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN", ticker: "TSLA" },
      { role: "legacy", address: "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG", ticker: null },
    ]);
  });

  test("bad values stop start-up naming every bad key", () => {
    let message = "";
    try {
      loadConfig({ PORT: "eighty", SOLANA_CLUSTER: "testnet", DATABASE_URL: "mysql://x" });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toContain("PORT");
    expect(message).toContain("SOLANA_CLUSTER");
    expect(message).toContain("DATABASE_URL");
    // one line per key, with the value as it was set
    expect(message.split("\n").filter((l) => l.includes("PORT"))).toEqual(['  PORT: must be an integer (got "eighty")']);
    expect(() => loadConfig({ PLATFORM_CONFIGS: "launch:nope" })).toThrow(/PLATFORM_CONFIGS/);
    expect(() => loadConfig({ SOL_PRICE_SOURCES: "oracle,magic" })).toThrow(/SOL_PRICE_SOURCES: "magic"/);
    expect(() => loadConfig({ HELIUS_WEBHOOK_SECRET: "short" })).toThrow(/HELIUS_WEBHOOK_SECRET/);
  });

  test("invalid secrets are named, never echoed", () => {
    const secrets = { HELIUS_WEBHOOK_SECRET: "tiny-secret", VAULT_ENCRYPTION_KEY: "not-32-bytes-of-base64-key-material", IPFS_PIN_TOKEN: "abc", DATABASE_URL: "mysql://user:hunter2@db/x" };
    let message = "";
    try {
      loadConfig(secrets);
    } catch (err) {
      message = (err as Error).message;
    }
    for (const [key, value] of Object.entries(secrets)) {
      expect(message).toContain(key);
      expect(message).not.toContain(value);
    }
    expect(message).not.toContain("hunter2");
  });

  test("agent runtime: no provider by default, the provider's URL and key, the cadence; a bad provider URL is not echoed", () => {
    expect(loadConfig({}).runtime).toEqual({ provider: null, cycleSeconds: 300, cycleTimeoutMs: 90_000, concurrency: 8 });
    const c = loadConfig({ MODEL_PROVIDER_URL: "https://openrouter.ai/api/v1/", MODEL_PROVIDER_KEY: "sk-or-secret", AGENT_CYCLE_SECONDS: "60", AGENT_CYCLE_TIMEOUT_SECONDS: "20", AGENT_CYCLE_CONCURRENCY: "2" });
    expect(c.runtime).toEqual({ provider: { url: "https://openrouter.ai/api/v1", key: "sk-or-secret" }, cycleSeconds: 60, cycleTimeoutMs: 20_000, concurrency: 2 });
    expect(() => loadConfig({ MODEL_PROVIDER_URL: "ftp://user:sk-pass@x" })).toThrow(/MODEL_PROVIDER_URL: must start with https:\/\/ or http:\/\/ \(got a value that is not shown: it is a secret\)/);
    expect(() => loadConfig({ AGENT_CYCLE_SECONDS: "0" })).toThrow(/AGENT_CYCLE_SECONDS/);
  });

  test("Launch API settings: defaults, and the vault key decoded", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    const c = loadConfig({ PORT: "4000", VAULT_ENCRYPTION_KEY: key, IPFS_PIN_URL: "https://pin.example/pinning/pinFileToIPFS", IPFS_PIN_TOKEN: "token-123456" });
    expect(c.apiBaseUrl).toBe("http://localhost:4000");
    expect(c.launch).toMatchObject({ ratePerMinute: 60, dailyQuota: 100, submitWaitMs: 20_000, priorityFeeMicroLamports: 0, pin: { url: "https://pin.example/pinning/pinFileToIPFS", token: "token-123456" }, firewallRulesFile: null });
    expect(Buffer.from(c.launch.vaultEncryptionKey!)).toEqual(Buffer.alloc(32, 7));
    expect(loadConfig({}).launch.vaultEncryptionKey).toBeNull();
    expect(() => loadConfig({ IPFS_PIN_TOKEN: "token-123456" })).toThrow(/IPFS_PIN_TOKEN: set IPFS_PIN_URL/);
  });
  test("Helius webhook sync settings: off by default, the API URL's default host, a bad key not echoed", () => {
    expect(loadConfig({}).helius).toEqual({ apiKey: null, webhookId: null, apiUrl: "https://api-mainnet.helius-rpc.com" });
    const c = loadConfig({ HELIUS_API_KEY: "key-0123456789", HELIUS_WEBHOOK_ID: "0e8c1a7e-1234-4b7d-9c4e-2b1f0a9d8e7f", HELIUS_API_URL: "http://127.0.0.1:9/", TREASURY_ADDRESS: "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew" });
    expect(c.helius).toEqual({ apiKey: "key-0123456789", webhookId: "0e8c1a7e-1234-4b7d-9c4e-2b1f0a9d8e7f", apiUrl: "http://127.0.0.1:9" });
    expect(c.treasuryAddress).toBe("CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew");
    expect(() => loadConfig({ HELIUS_API_KEY: "short" })).toThrow(/HELIUS_API_KEY: .*not shown: it is a secret/);
    expect(() => loadConfig({ HELIUS_API_KEY: "short" })).not.toThrow(/"short"/);
    expect(() => loadConfig({ HELIUS_API_URL: "ftp://x.example" })).toThrow(/HELIUS_API_URL/);
    expect(() => loadConfig({ TREASURY_ADDRESS: "not-base58!" })).toThrow(/TREASURY_ADDRESS: must be a base58 address/);
  });
});

describe("tokenomics", () => {
  test("the platform token and the split: defaults, parsed values, every bad value named", () => {
    expect(loadConfig({}).tokenomics).toEqual({ platformTokenMint: null, split: { vault: 70, creator: 15, platformBurn: 15 } });
    const c = loadConfig({ PLATFORM_TOKEN_MINT: "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx", TOKENOMICS_SPLIT: " 60, 20 ,20" });
    expect(c.tokenomics).toEqual({ platformTokenMint: "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx", split: { vault: 60, creator: 20, platformBurn: 20 } });
    expect(() => loadConfig({ PLATFORM_TOKEN_MINT: "0OIl" })).toThrow(/PLATFORM_TOKEN_MINT: must be a base58 address/);
    expect(() => loadConfig({ TOKENOMICS_SPLIT: "70,15" })).toThrow(/TOKENOMICS_SPLIT: "70,15" must be three whole percentages/);
    expect(() => loadConfig({ TOKENOMICS_SPLIT: "70,15,5.5" })).toThrow(/TOKENOMICS_SPLIT/);
    expect(() => loadConfig({ TOKENOMICS_SPLIT: "70,20,15" })).toThrow(/TOKENOMICS_SPLIT: "70,20,15" must sum to 100 \(it sums to 105\)/);
  });
});

describe("jupiter", () => {
  test("the Swap API's URL and key: defaults, a trailing slash dropped, a bad key refused without showing it", () => {
    expect(loadConfig({}).jupiter).toEqual({ swapUrl: "https://lite-api.jup.ag/swap/v1", apiKey: null });
    expect(loadConfig({ JUPITER_SWAP_URL: "https://api.jup.ag/swap/v1/", JUPITER_API_KEY: "jup-key-0123456789" }).jupiter).toEqual({ swapUrl: "https://api.jup.ag/swap/v1", apiKey: "jup-key-0123456789" });
    expect(() => loadConfig({ JUPITER_SWAP_URL: "ftp://x.example" })).toThrow(/JUPITER_SWAP_URL/);
    expect(() => loadConfig({ JUPITER_API_KEY: "short" })).toThrow(/JUPITER_API_KEY: .*not shown: it is a secret/);
    expect(() => loadConfig({ JUPITER_API_KEY: "short" })).not.toThrow(/"short"/);
  });
});

describe("model catalog", () => {
  test("the default, a configured list in micro-USD per million tokens, and every bad value named", () => {
    expect(loadConfig({}).models).toEqual([
      { id: "openai/gpt-4o-mini", inputMicrosPerMTok: 150_000, outputMicrosPerMTok: 600_000 },
      { id: "anthropic/claude-3.5-haiku", inputMicrosPerMTok: 800_000, outputMicrosPerMTok: 4_000_000 },
      { id: "openai/gpt-4o", inputMicrosPerMTok: 2_500_000, outputMicrosPerMTok: 10_000_000 },
    ]);
    const c = loadConfig({ MODEL_CATALOG: " meta-llama/llama-3.1-8b-instruct:free=0/0 , local.qwen2=0.000001/12.5" });
    expect(c.models).toEqual([
      { id: "meta-llama/llama-3.1-8b-instruct:free", inputMicrosPerMTok: 0, outputMicrosPerMTok: 0 },
      { id: "local.qwen2", inputMicrosPerMTok: 1, outputMicrosPerMTok: 12_500_000 },
    ]);
    expect(() => loadConfig({ MODEL_CATALOG: " , " })).toThrow(/MODEL_CATALOG: must list at least one model/);
    expect(() => loadConfig({ MODEL_CATALOG: "gpt=1" })).toThrow(/MODEL_CATALOG: "gpt=1" must be <model id>=<input USD>\/<output USD>/);
    expect(() => loadConfig({ MODEL_CATALOG: "gpt=1/0.0000001" })).toThrow(/MODEL_CATALOG: "gpt=1\/0.0000001" must be a USD amount with at most 6 decimals/);
    expect(() => loadConfig({ MODEL_CATALOG: "gpt=1/-2" })).toThrow(/must be a USD amount/);
    expect(() => loadConfig({ MODEL_CATALOG: "a=1/1,a=2/2" })).toThrow(/MODEL_CATALOG: "a" is listed twice/);
    expect(() => loadConfig({ MODEL_CATALOG: "bad id=1/1" })).toThrow(/MODEL_CATALOG/);
  });
});

describe("Data API limits and metrics access", () => {
  test("defaults, parsed values, and bad values named without echoing the token", () => {
    expect(loadConfig({}).dataApi).toEqual({ ratePerMinute: 600, rateBurst: 120, trustedProxies: [], exportsPerClient: 2 });
    expect(loadConfig({}).metrics).toEqual({ token: null });
    const c = loadConfig({ DATA_API_RATE_PER_MINUTE: "0", DATA_API_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.1,", METRICS_TOKEN: "metrics-token-0123456789", EXPORT_CONCURRENCY_PER_CLIENT: "5" });
    expect(c.dataApi).toEqual({ ratePerMinute: 0, rateBurst: 120, trustedProxies: ["10.0.0.0/8", "192.0.2.1"], exportsPerClient: 5 });
    expect(() => loadConfig({ EXPORT_CONCURRENCY_PER_CLIENT: "0" })).toThrow(/EXPORT_CONCURRENCY_PER_CLIENT/);
    expect(c.metrics.token).toBe("metrics-token-0123456789");
    expect(() => loadConfig({ DATA_API_TRUSTED_PROXIES: "10.0.0.0/99" })).toThrow(/DATA_API_TRUSTED_PROXIES/);
    expect(() => loadConfig({ DATA_API_RATE_BURST: "0" })).toThrow(/DATA_API_RATE_BURST/);
    let message = "";
    try {
      loadConfig({ METRICS_TOKEN: "short-secret" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("METRICS_TOKEN");
    expect(message).not.toContain("short-secret");
  });
});

describe("wallet sign-in settings", () => {
  test("the domain and URI follow PUBLIC_BASE_URL unless set; token lifetimes and the nonce rate", () => {
    expect(loadConfig({}).auth).toEqual({ domain: "localhost:3000", uri: "http://localhost:3000", accessTtlMs: 3_600_000, refreshTtlMs: 30 * 86_400_000, nonceRatePerMinute: 10 });
    expect(loadConfig({ PUBLIC_BASE_URL: "https://Coins.Example/app/" }).auth).toMatchObject({ domain: "coins.example", uri: "https://Coins.Example/app" });
    const set = loadConfig({ SIWS_DOMAIN: "App.Example:8443", SIWS_URI: "https://app.example:8443/", AUTH_ACCESS_TOKEN_MINUTES: "15", AUTH_REFRESH_TOKEN_DAYS: "7", AUTH_NONCE_RATE_PER_MINUTE: "0" });
    expect(set.auth).toEqual({ domain: "app.example:8443", uri: "https://app.example:8443/", accessTtlMs: 900_000, refreshTtlMs: 7 * 86_400_000, nonceRatePerMinute: 0 });
  });

  test("bad values are named", () => {
    let message = "";
    try {
      loadConfig({ SIWS_DOMAIN: "https://app.example", SIWS_URI: "app", AUTH_ACCESS_TOKEN_MINUTES: "0", AUTH_REFRESH_TOKEN_DAYS: "400", AUTH_NONCE_RATE_PER_MINUTE: "-1" });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    for (const key of ["SIWS_DOMAIN", "SIWS_URI", "AUTH_ACCESS_TOKEN_MINUTES", "AUTH_REFRESH_TOKEN_DAYS", "AUTH_NONCE_RATE_PER_MINUTE"]) expect(message).toContain(`${key}:`);
    expect(message).toContain("SIWS_DOMAIN: must be a host name, optionally with :port (no scheme, no path)");
  });
});

describe("realtime channel limits", () => {
  test("defaults, parsed values, and a zero named", () => {
    expect(loadConfig({}).realtime).toEqual({ maxTopicsPerSocket: 50, maxSocketsPerClient: 20 });
    expect(loadConfig({ REALTIME_MAX_TOPICS_PER_SOCKET: "3", REALTIME_MAX_SOCKETS_PER_CLIENT: "1200" }).realtime).toEqual({ maxTopicsPerSocket: 3, maxSocketsPerClient: 1200 });
    expect(() => loadConfig({ REALTIME_MAX_TOPICS_PER_SOCKET: "0" })).toThrow(/REALTIME_MAX_TOPICS_PER_SOCKET/);
    expect(() => loadConfig({ REALTIME_MAX_SOCKETS_PER_CLIENT: "x" })).toThrow(/REALTIME_MAX_SOCKETS_PER_CLIENT/);
  });
});
