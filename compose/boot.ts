/**
 * Start-up and shutdown shared by every process entry point (`main.ts` and the
 * split `ingest`, `pipelines`, `api`, `agents` processes).
 */
import { Elysia } from "elysia";
import { join } from "node:path";
import { loadConfig, ConfigError, type Config } from "../infra/config";
import { createLogger, type Logger } from "../infra/log";
import { openPostgres, type PostgresHandle } from "../infra/postgres";
import { connectClickhouse, type ClickHouse } from "../infra/clickhouse";
import { migrateClickhouse, migratePostgres } from "../infra/migrate";
import { createSolanaRpc, type SolanaRpc } from "../infra/solana-rpc";
import type { ConfigRegistry } from "../ingest/contract/configs";
import { loadPlatformConfigs } from "../ingest/load-configs";
import { fixtureSimConfigs, type SimConfig } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { metricsDenial, metricsDenied } from "../infra/metrics-access";
import { withSimulatedPlatform } from "./processes/simulator";

/**
 * The configuration, or exit 2 with the message naming every bad key. Nothing is created
 * here: the generated development vault key is the business of the processes that serve
 * the Launch API (compose/processes/vault-key.ts), not of every command-line tool.
 */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : `cannot start: ${(err as Error).message}`);
    process.exit(2);
  }
}

/**
 * A start-up step failed: one line saying what (no stack trace), then what already started
 * is stopped (for at most 5 s) and the process exits 1, so a supervisor or a person sees
 * the failure at once instead of a process that neither serves nor ends.
 */
export async function startFailed(log: Logger, what: string, err: unknown, undo: (() => unknown)[] = []): Promise<never> {
  log.error(`cannot start: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  setTimeout(() => process.exit(1), 5000).unref();
  for (const step of undo) await Promise.resolve().then(step).catch(() => {});
  process.exit(1);
}

/** Runs one start-up step; on failure, startFailed with what to undo. */
export async function startStep<T>(log: Logger, what: string, fn: () => T | Promise<T>, undo: () => (() => unknown)[] = () => []): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    return startFailed(log, what, err, undo());
  }
}

/** Postgres and ClickHouse (embedded or servers), migrated; a failure ends the process (startFailed). */
export async function openEngines(config: Config, log: Logger): Promise<{ pg: PostgresHandle; ch: ClickHouse }> {
  let pg: PostgresHandle | null = null;
  let ch: ClickHouse | null = null;
  const undo = () => [() => ch?.close(), () => pg?.stop()];
  const postgresName = config.databaseUrl ? "postgres (DATABASE_URL)" : `embedded postgres under ${join(config.dataDir, "postgres")}`;
  const clickhouseName = config.clickhouseUrl ? "clickhouse (CLICKHOUSE_URL)" : `chdb under ${join(config.dataDir, "clickhouse")}`;
  pg = await startStep(log, postgresName, () => openPostgres(config.databaseUrl, config.dataDir, log, config.embeddedPostgresFallbackDir), undo);
  ch = await startStep(log, clickhouseName, () => connectClickhouse(config), undo);
  await startStep(log, `${postgresName}: migrations`, () => migratePostgres(pg.sql, log), undo);
  await startStep(log, `${clickhouseName}: migrations`, () => migrateClickhouse(ch!, log, pg.sql), undo);
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
 * flush, commit, close), then the process exits 0. Other signal hooks (a library's
 * that would end the process before anything is flushed) are removed; the embedded
 * Postgres runs in its own process group, so a terminal's Ctrl-C reaches only this
 * process, and the steps stop Postgres last.
 */
export function onShutdown(log: Logger, steps: () => (() => unknown)[]): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    await runSteps(log, steps());
    log.info("stopped");
    process.exit(0);
  };
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

/**
 * Shuts a process down gracefully on SIGINT/SIGTERM from the moment it starts starting: a signal
 * that arrives while it is still starting (after its HTTP port already answers readiness, say)
 * waits for the start to finish and then stops it, instead of ending it with no flush. The hooks
 * are installed again once it has started, dropping any a library added while starting.
 */
export async function stopOnSignal(log: Logger, starting: Promise<{ stop(): unknown }>): Promise<void> {
  const steps = () => [async () => (await starting).stop()];
  onShutdown(log, steps);
  await starting;
  onShutdown(log, steps);
}

/** Runs the steps in order; a failing step is logged and the next one still runs. */
async function runSteps(log: Logger, steps: (() => unknown)[]): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      log.error("shutdown step failed", { err: err as Error });
    }
  }
}

/** A started process: the port it serves on (if any) and its shutdown, run once whoever asks. */
export type ProcessHandle = { port: number | undefined; stop(): Promise<void> };

/** A handle whose `stop` runs `steps` in order (stop taking work, flush, commit, close) the first time it is called. */
export function processHandle(log: Logger, port: number | undefined, steps: () => (() => unknown)[]): ProcessHandle {
  let stopped: Promise<void> | null = null;
  return { port, stop: () => (stopped ??= runSteps(log, steps())) };
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

/** startStep for the steps after openEngines: on failure the engines are stopped too. */
export function stepAfterEngines(log: Logger, engines: { pg: PostgresHandle; ch: ClickHouse }) {
  return <T>(what: string, fn: () => T | Promise<T>) => startStep(log, what, fn, () => [() => engines.ch.close(), () => engines.pg.stop()]);
}

/**
 * What every process on the stores starts from: the engines (migrated), a start-up step that
 * stops them when it fails, the RPC client (with SOLANA_RPC_URL), the platform configs, and
 * the configuration to run with (with the simulator on, its platform token and treasury
 * filled in where PLATFORM_TOKEN_MINT / TREASURY_ADDRESS are unset).
 */
export async function openPlatform(config: Config, log: Logger) {
  const { pg, ch } = await openEngines(config, log);
  const step = stepAfterEngines(log, { pg, ch });
  const rpc = config.rpcUrl ? createSolanaRpc(config.rpcUrl) : null;
  const { configs, simConfigs } = await step("platform configs", () => platformConfigs(config, log, rpc));
  // the simulated platform's token and treasury, where the configuration names none
  const configured = simConfigs ? withSimulatedPlatform(config, simConfigs, log) : config;
  return { pg, ch, engines: { ch, sql: pg.sql }, step, rpc, configs, simConfigs, config: configured };
}
