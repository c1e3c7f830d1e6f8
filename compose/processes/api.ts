/**
 * The api process (scaled mode, `api/main.ts`): the Data API, the Launch API and stored
 * media, reading ClickHouse and Postgres. Stateless apart from its short response cache
 * and per-key rate windows: run replicas freely (launch confirmation in the background is
 * the agents process's job).
 */
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { createSolPriceService } from "../../infra/sol-price";
import { createApp } from "../../api/app";
import { openPlatform, processHandle } from "../boot";
import { dataApiDeps, enginesReady, launchPlatform, poolApiDeps, priceSources } from "../wiring";
import { withLaunchVaultKey } from "./vault-key";

export async function startApi(given: Config, log: Logger) {
  const config = await withLaunchVaultKey(given, log); // it serves the Launch API
  const { pg, ch, engines, step, rpc, configs } = await openPlatform(config, log);
  const launches = launchPlatform(config, engines, configs, rpc, log);
  const data = dataApiDeps(config, engines, configs, createSolPriceService(priceSources(config, rpc), log.child({ stage: "price" })), { rpc });
  const app = createApp({
    log,
    ready: () => enginesReady(engines),
    metricsText: () => "# TYPE acp_api_up gauge\nacp_api_up 1\n",
    metricsToken: config.metrics.token,
    ingest: null,
    launches: launches.routes,
    media: launches.media,
    data,
    pools: poolApiDeps(engines, configs, rpc, log, data),
  });
  const server = await step(`listening on port ${config.port}`, () => app.listen({ port: config.port, hostname: "0.0.0.0" }));
  const port = server.server?.port;
  log.info("listening", { port });
  return processHandle(log, port, () => [() => server.stop(), () => ch.close(), () => pg.stop()]);
}
