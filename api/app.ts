/**
 * The HTTP app: health, the Data API, the Application API's public reads, the dashboard page, the daemon surface with
 * its treasury actions and contests, wallet sign-in and the signed-in account, the Launch API, stored media, the webhook
 * receiver, the realtime channel, metrics, and the OpenAPI document of all of them with its reference page.
 * One Elysia instance per feature, composed here.
 */
import { Elysia } from "elysia";
import { Registry } from "prom-client";
import { errorHandler, errorStatus } from "./errors";
import { publicRoutes, type DataApiDeps } from "./public";
import { appPublicRoutes } from "./app-public";
import { exportRoutes } from "./exports";
import { ingestRoutes, type IngestDeps } from "./ingest";
import type { Logger } from "../infra/log";
import { launchRoutes, type LaunchRouteDeps } from "./launches";
import { mediaRoutes } from "./media";
import { poolRoutes, type PoolRouteDeps } from "./pools";
import { daemonRoutes, type DaemonRouteDeps } from "./daemons";
import { contestRoutes, type ContestRouteDeps } from "./contests";
import { treasuryRoutes, type TreasuryRouteDeps } from "./treasury";
import { buybackRoutes, type BuybackRouteDeps } from "./treasury/buybacks";
import { authRoutes, type AuthRouteDeps } from "./auth";
import { meRoutes, type MeRouteDeps } from "./me";
import { realtimeRoutes, WEBSOCKET_SETTINGS, type RealtimeRouteDeps } from "./realtime";
import { openApiRoutes } from "./openapi";
import { dashboardRoutes } from "./dashboard";
import type { MediaStore } from "../infra/media-store";
import { metricsDenial, metricsDenied } from "../infra/metrics-access";
import { httpDurationHistogram } from "../pipelines/metrics";

export type AppDeps = {
  log: Logger;
  ready: () => Promise<boolean>;
  data: DataApiDeps | null;
  ingest: IngestDeps | null;
  /** this process's metrics registry (/metrics serves it; the HTTP latency histogram is added to it); default: a new one */
  registry?: Registry;
  /** more Prometheus text after the registry's, from counters kept outside it */
  metricsText?: () => string | Promise<string>;
  /** who may read /metrics: the METRICS_TOKEN bearer token, or null = loopback clients only */
  metricsToken?: string | null;
  /** the Launch API (/v1/launches, /v1/stocks) */
  launches?: LaunchRouteDeps | null;
  /** stored launch images and metadata (/v1/media) */
  media?: MediaStore | null;
  /** live pool state and quotes (/v1/tokens/:mint/pool, /v1/tokens/:mint/quote) */
  pools?: PoolRouteDeps | null;
  /** the daemon surface (/v1/daemons/..., /v1/me/console, /v1/me/approvals) */
  daemons?: DaemonRouteDeps | null;
  /** contests (/v1/daemons/:mint/contests...) */
  contests?: ContestRouteDeps | null;
  /** treasury actions (/v1/daemons/:mint/airdrops, ...) */
  treasury?: TreasuryRouteDeps | null;
  /** an agent's buybacks (/v1/daemons/:mint/buybacks): the operator's requests and the public list */
  buybacks?: BuybackRouteDeps | null;
  /** wallet sign-in (/v1/auth/nonce, verify, refresh, logout) */
  auth?: AuthRouteDeps | null;
  /** the signed-in account (/v1/me, /v1/me/agents, /v1/me/wallet) */
  me?: MeRouteDeps | null;
  /** the realtime channel (/v1/ws) */
  realtime?: RealtimeRouteDeps | null;
};

export function createApp(deps: AppDeps) {
  const registry = deps.registry ?? new Registry();
  const httpSeconds = httpDurationHistogram(registry);
  const started = new WeakMap<Request, number>();
  const app = new Elysia({ websocket: WEBSOCKET_SETTINGS })
    .use(errorHandler(deps.log))
    // latency per route template (never the raw path: a label per mint would grow without end)
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, (ctx) => {
      const t = started.get(ctx.request);
      if (t === undefined) return;
      const route = "route" in ctx && typeof ctx.route === "string" && ctx.route ? ctx.route : "unmatched";
      httpSeconds.observe({ route, method: ctx.request.method, status: String(statusOf(ctx)) }, (performance.now() - t) / 1000);
    })
    .get("/healthz", () => ({ ok: true }))
    .get("/readyz", async ({ set }) => {
      const ready = await deps.ready().catch(() => false);
      if (!ready) set.status = 503;
      return { ready };
    })
    .get("/metrics", async ({ set, request, server }) => {
      // no socket (app.handle in-process) = null; a socket whose peer is unknown = not loopback
      const denial = metricsDenial(deps.metricsToken ?? null, server ? (server.requestIP(request)?.address ?? "") : null, request.headers);
      if (denial) return metricsDenied(denial);
      set.headers["content-type"] = registry.contentType;
      set.headers["cache-control"] = "no-store";
      return (await registry.metrics()) + ((await deps.metricsText?.()) ?? "");
    })
    // the contract: GET /v1/openapi.json and the reference page /docs
    .use(openApiRoutes())
    .use(deps.daemons ? daemonRoutes(deps.daemons) : new Elysia())
    .use(deps.contests ? contestRoutes(deps.contests) : new Elysia())
    .use(deps.treasury ? treasuryRoutes(deps.treasury) : new Elysia())
    .use(deps.buybacks ? buybackRoutes(deps.buybacks) : new Elysia())
    .use(deps.data ? publicRoutes(deps.data) : new Elysia())
    // the Application API's public reads (/v1/tokens, /v1/price/sol, /v1/feed, /v1/daemons/:mint/feed) read what the Data API reads
    .use(deps.data ? appPublicRoutes(deps.data) : new Elysia())
    // trade history export (/v1/public/exports/trades): the Data API's engines, budget and CORS, streamed answers
    .use(deps.data ? exportRoutes({ ...deps.data, exportsPerClient: deps.data.exportsPerClient ?? 2, log: deps.log.child({ stage: "exports" }) }) : new Elysia())
    // the dashboard page reads the public APIs above from the browser
    .use(deps.data ? dashboardRoutes({ log: deps.log.child({ stage: "dashboard" }) }) : new Elysia())
    .use(deps.ingest ? ingestRoutes(deps.ingest) : new Elysia())
    .use(deps.launches ? launchRoutes(deps.launches) : new Elysia())
    .use(deps.media ? mediaRoutes(deps.media) : new Elysia())
    .use(deps.pools ? poolRoutes(deps.pools) : new Elysia())
    .use(deps.auth ? authRoutes(deps.auth) : new Elysia())
    .use(deps.me ? meRoutes(deps.me) : new Elysia())
    .use(deps.realtime ? realtimeRoutes(deps.realtime) : new Elysia());
  return app;
}

/** The status a request was answered with, as errors/index.ts maps errors. */
function statusOf(ctx: { error?: unknown; code?: unknown; set: { status?: unknown }; responseValue?: unknown }): number {
  if ("error" in ctx && ctx.error !== undefined) return errorStatus(ctx.error, ctx.code);
  if (ctx.responseValue instanceof Response) return ctx.responseValue.status;
  return typeof ctx.set.status === "number" ? ctx.set.status : 200;
}
