/**
 * GET /v1/public/exports/trades: a coin's (or every public coin's) trades as CSV, NDJSON
 * or Parquet, streamed from the engine as the client reads. The Data API's conventions
 * (CORS, the per-client request budget, the error envelope) come from public/; on top,
 * a client runs at most `perClient` exports at once, and a client that goes away stops
 * its query.
 */
import { Elysia } from "elysia";
import { ApiError } from "../errors";
import { CORS } from "../public/http";
import type { ClientAddressOf } from "../public/client-address";
import type { Logger } from "../../infra/log";
import { parseExportQuery } from "./model";
import { startExport, type ExportDeps } from "./service";
import { createExportSlots } from "./slots";

export type ExportRouteDeps = ExportDeps & {
  /** which client a request counts against (null for an in-process call: not limited) */
  clientOf?: ClientAddressOf;
  /** exports one client address may run at once (EXPORT_CONCURRENCY_PER_CLIENT) */
  exportsPerClient: number;
  log: Logger;
};

/** Seconds a client over its export limit is told to wait: exports take long, there is no better guess. */
export const EXPORT_RETRY_AFTER_SECONDS = 5;

export const exportRoutes = (deps: ExportRouteDeps) => {
  const slots = createExportSlots(deps.exportsPerClient);
  return new Elysia({ prefix: "/v1/public/exports" }).get("/trades", async ({ query, request, server }) => {
    const q = parseExportQuery(query as Record<string, string | undefined>);
    const client = deps.clientOf?.(server?.requestIP(request)?.address ?? (server ? "" : null), request.headers.get("x-forwarded-for")) ?? null;
    const release = client === null ? () => {} : slots.take(client);
    if (!release)
      throw new ApiError(429, "RATE_LIMITED", `this address already runs ${deps.exportsPerClient} exports; retry when one has finished`, undefined, {
        "retry-after": String(EXPORT_RETRY_AFTER_SECONDS),
      });
    const stop = new AbortController();
    let started;
    try {
      started = await startExport(deps, q, stop.signal);
    } catch (err) {
      release();
      throw err;
    }
    const rows = started.body[Symbol.asyncIterator]();
    let ended = false;
    // called once: when the rows end, fail, or the client goes away; the slot is free once the query has stopped
    const end = async () => {
      if (ended) return;
      ended = true;
      request.signal.removeEventListener("abort", onAbort);
      stop.abort();
      try {
        await rows.return?.();
      } catch {
        // the query's own failure was logged where it surfaced
      } finally {
        release();
      }
    };
    const onAbort = () => void end();
    request.signal.addEventListener("abort", onAbort);
    // Bun's "direct" stream: each chunk is written straight to the socket (or copied into its
    // buffer), so it is freed at once; a write answers with a promise while the socket is full
    const source: Bun.DirectUnderlyingSource<Uint8Array> = {
      type: "direct",
      async pull(controller) {
        // one chunk read ahead: the engine makes the next while the socket takes this one
        let next = rows.next();
        try {
          for (;;) {
            const chunk = await next;
            if (chunk.done || ended) break;
            next = rows.next();
            const size = chunk.value.length;
            const sent = controller.write(chunk.value);
            started.free(chunk.value);
            // 0 once the client has gone (then cancel ends the export too)
            if (((typeof sent === "number" ? sent : await sent) === 0 && size > 0) || ended) return;
          }
          if (!ended) controller.close();
        } catch (err) {
          if (!stop.signal.aborted) deps.log.error("trade export failed mid-stream", { mint: q.mint, format: q.format, error: String(err) });
          // the answer is already under way: ending it without its last chunk tells the client it is incomplete
          if (!ended) controller.close(err instanceof Error ? err : new Error(String(err)));
        } finally {
          // a read ahead still pending ends with the query (end awaits it); its failure is the stop's
          next.catch(() => {});
          await end();
        }
      },
      cancel: end,
    };
    // (the DOM library's types know no direct sources, hence the cast)
    return new Response(new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>), {
      headers: {
        ...CORS,
        "access-control-expose-headers": "Content-Disposition, X-Export-Until-Slot",
        "content-type": started.contentType,
        "content-disposition": `attachment; filename="${started.fileName}"`,
        "x-export-until-slot": started.untilSlot.toString(),
        "cache-control": "no-store",
      },
    });
  });
};
