/**
 * The HTTP app: health, the Data API, the Launch API, stored media, the webhook
 * receiver and metrics.
 * One Elysia instance per feature, composed here.
 */
import { Elysia } from "elysia";
import { errorHandler } from "./errors";
import { publicRoutes, type DataApiDeps } from "./public";
import { ingestRoutes, type IngestDeps } from "./ingest";
import type { Logger } from "../infra/log";
import { launchRoutes, type LaunchRouteDeps } from "./launches";
import { mediaRoutes } from "./media";
import type { MediaStore } from "../infra/media-store";

export type AppDeps = {
  log: Logger;
  ready: () => Promise<boolean>;
  data: DataApiDeps | null;
  ingest: IngestDeps | null;
  metricsText: () => string;
  /** the Launch API (/v1/launches, /v1/stocks) */
  launches?: LaunchRouteDeps | null;
  /** stored launch images and metadata (/v1/media) */
  media?: MediaStore | null;
};

export function createApp(deps: AppDeps) {
  const app = new Elysia()
    .use(errorHandler(deps.log))
    .get("/healthz", () => ({ ok: true }))
    .get("/readyz", async ({ set }) => {
      const ready = await deps.ready().catch(() => false);
      if (!ready) set.status = 503;
      return { ready };
    })
    .get("/metrics", ({ set }) => {
      set.headers["content-type"] = "text/plain; version=0.0.4";
      return deps.metricsText();
    })
    .use(deps.data ? publicRoutes(deps.data) : new Elysia())
    .use(deps.ingest ? ingestRoutes(deps.ingest) : new Elysia())
    .use(deps.launches ? launchRoutes(deps.launches) : new Elysia())
    .use(deps.media ? mediaRoutes(deps.media) : new Elysia());
  return app;
}
