/**
 * The api process (scaled mode): the Data API, the Launch API and stored media,
 * reading ClickHouse and Postgres. Stateless apart from its short response cache
 * and per-key rate windows: run replicas freely (launch confirmation in the
 * background is the agents process's job).
 */
import { createLogger } from "../infra/log";
import { configOrExit, onShutdown, openEngines, platformConfigs } from "../compose/boot";
import { createSolanaRpc } from "../infra/solana-rpc";
import { createSolPriceService } from "../infra/sol-price";
import { dataApiDeps, enginesReady, launchPlatform, poolApiDeps, priceSources } from "../compose/wiring";
import { createApp } from "./app";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "api" });
const { pg, ch } = await openEngines(config, log);
const rpc = config.rpcUrl ? createSolanaRpc(config.rpcUrl) : null;
const { configs } = await platformConfigs(config, log, rpc);
const launches = launchPlatform(config, { ch, sql: pg.sql }, configs, rpc, log);
const data = dataApiDeps(config, { ch, sql: pg.sql }, configs, createSolPriceService(priceSources(config, rpc), log.child({ stage: "price" })));
const app = createApp({
  log,
  ready: () => enginesReady({ ch, sql: pg.sql }),
  metricsText: () => "# TYPE acp_api_up gauge\nacp_api_up 1\n",
  metricsToken: config.metrics.token,
  ingest: null,
  launches: launches.routes,
  media: launches.media,
  data,
  pools: poolApiDeps({ ch, sql: pg.sql }, configs, rpc, log, data),
});
const server = app.listen({ port: config.port, hostname: "0.0.0.0" });
log.info("listening", { port: server.server?.port });
onShutdown(log, () => [() => server.stop(), () => ch.close(), () => pg.stop()]);
