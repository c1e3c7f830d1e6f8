/**
 * The api process (scaled mode, `api/main.ts`): the Data API, the daemon surface, wallet sign-in, the Launch API,
 * stored media and the realtime channel (/v1/ws, relayed across replicas by Postgres LISTEN/NOTIFY), reading ClickHouse and Postgres. Stateless apart from its short response cache
 * and per-key rate windows: run replicas freely (launch confirmation in the background is
 * the agents process's job).
 */
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { createSolPriceService } from "../../infra/sol-price";
import { createApp } from "../../api/app";
import { openPlatform, processHandle } from "../boot";
import { buybackApiDeps, daemonApiDeps, dataApiDeps, treasuryApiDeps, enginesReady, launchPlatform, poolApiDeps, priceSources, realtimePlatform, signInApiDeps } from "../wiring";
import { withLaunchVaultKey } from "./vault-key";

export async function startApi(given: Config, log: Logger) {
  const withKey = await withLaunchVaultKey(given, log); // it serves the Launch API
  const { pg, ch, engines, step, rpc, configs, config } = await openPlatform(withKey, log);
  const launches = launchPlatform(config, engines, configs, rpc, log);
  const data = dataApiDeps(config, engines, configs, createSolPriceService(priceSources(config, rpc), log.child({ stage: "price" })), { rpc });
  const signIn = signInApiDeps(config, engines, rpc, log, data);
  // every replica LISTENs for the stdout lines any process writes: any replica serves any topic
  const realtime = realtimePlatform(config, data, pg.url, log);
  const daemons = daemonApiDeps(config, data, launches.firewall, configs, log, signIn.auth.authenticate);
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
    auth: signIn.routes,
    me: signIn.me,
    daemons,
    treasury: treasuryApiDeps(data, configs, rpc, log, signIn.auth.authenticate),
    buybacks: buybackApiDeps(daemons, engines, configs, rpc, log),
    realtime: realtime.routes,
  });
  const server = await step(`listening on port ${config.port}`, () => app.listen({ port: config.port, hostname: "0.0.0.0" }));
  const port = server.server?.port;
  log.info("listening", { port });
  return processHandle(log, port, () => [() => realtime.stop(), () => server.stop(), () => ch.close(), () => pg.stop()]);
}
