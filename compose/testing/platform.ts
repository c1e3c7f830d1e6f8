/**
 * The all-in-one platform on real test engines, for integration tests. The SOL
 * price comes from a loopback test double (a fixed-price source), never a network.
 */
import { readFileSync } from "node:fs";
import { loadConfig } from "../../infra/config";
import { createLogger } from "../../infra/log";
import { wirePlatform, type realtimePlatform } from "../wiring";
import type { Authenticate } from "../../api/daemons/operator";
import { createSolPriceService, type PriceSource } from "../../infra/sol-price";
import { testEngines } from "../../infra/testing/engines";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { decodePoolConfig } from "../../ingest/decoders/accounts";
import { configRegistry, toPlatformConfig, type ConfigRegistry, type DecodedPoolConfig } from "../../ingest/contract/configs";

export const TEST_WEBHOOK_SECRET = "test-webhook-secret-0123456789";
export { FIXTURES_DIR as FIXTURES } from "../../infra/testing/fixtures";
import { FIXTURES_DIR as FIXTURES } from "../../infra/testing/fixtures";

/** Test double: a price source that always answers `usd`, labeled as the exchange source. */
export function fixedPriceSourceTestDouble(usd: number): PriceSource {
  return { name: "exchange", read: async () => ({ usd, conf: null, publishTime: "2026-01-01T00:00:00.000Z", source: "exchange" }) };
}

export function fixturePoolConfig(): DecodedPoolConfig {
  return decodePoolConfig(readFileSync(FIXTURES + "mainnet-accounts/dbc-pool-config.fee-in-both.bin")) as DecodedPoolConfig;
}

/** Registry whose configs carry the real mainnet PoolConfig bytes under the given addresses. */
export function registryWith(entries: { role: "launch" | "stock" | "legacy"; address: string; ticker?: string }[]): ConfigRegistry {
  const pc = fixturePoolConfig();
  return configRegistry(entries.map((e) => toPlatformConfig({ role: e.role, address: e.address, ticker: e.ticker ?? null }, pc, 9)));
}

/** Calls an app in-process (no socket): status, headers, and the body parsed as JSON when it is JSON. */
export const callerOf =
  (app: { handle(request: Request): Promise<Response> }) =>
  async (path: string, init: RequestInit = {}) => {
    const res = await app.handle(new Request(`http://local${path}`, init));
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body };
  };

export async function testPlatform(
  configs: ConfigRegistry,
  opts: {
    solUsd?: number | null;
    responseCache?: boolean;
    env?: Record<string, string>;
    authenticate?: Authenticate;
    /** price sources instead of the fixed-price double */
    priceSources?: PriceSource[];
    /** the realtime relay's reconnect delay and the price poll (its LISTEN connection opens only when a socket subscribes to an agent) */
    realtime?: Parameters<typeof realtimePlatform>[4];
  } = {},
) {
  const engines = await testEngines();
  const config = loadConfig({ PUBLIC_BASE_URL: "https://agents.example", SOLANA_CLUSTER: "devnet", SIMULATOR: "off", ...opts.env });
  const sources = opts.priceSources ?? (opts.solUsd === null ? [] : [fixedPriceSourceTestDouble(opts.solUsd ?? 150)]);
  const log = createLogger("error");
  const platform = await wirePlatform({
    config,
    log,
    engines,
    configs,
    webhookSecret: TEST_WEBHOOK_SECRET,
    price: createSolPriceService(sources, log),
    responseCache: opts.responseCache ?? false,
    boardRefreshMs: 0,
    rpc: config.rpcUrl ? createSolanaRpc(config.rpcUrl) : null,
    authenticate: opts.authenticate,
    listenUrl: engines.pgUrl,
    realtime: opts.realtime,
  });
  const call = callerOf(platform.app);
  const postWebhook = (body: unknown, secret = TEST_WEBHOOK_SECRET) =>
    call("/v1/ingest/helius", { method: "POST", headers: { authorization: secret, "content-type": "application/json" }, body: JSON.stringify(body) });
  return { ...platform, engines, config, call, postWebhook };
}
