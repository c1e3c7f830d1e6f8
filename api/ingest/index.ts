/**
 * POST /v1/ingest/helius: the Helius webhook receiver. Answers 200 only once
 * everything in the body is durable (the bus resolves after the sink stored it).
 */
import { Elysia } from "elysia";
import { timingSafeEqual, createHash } from "node:crypto";
import type { Bus } from "../../pipelines/bus";
import type { Logger } from "../../infra/log";
import { DecoderUnavailable, type DecodePool } from "../../ingest/helius/decode-pool";
import { ApiError } from "../errors";
import { SinkOverloaded } from "../../pipelines/sink";

/** Constant-time comparison (hashing first makes the lengths equal). */
export function secretMatches(given: string | null, expected: string | null): boolean {
  if (!expected || given === null) return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

export type IngestDeps = { bus: Bus; decoder: DecodePool; webhookSecret: () => string | null; log: Logger };

export const ingestRoutes = (deps: IngestDeps) =>
  new Elysia({ prefix: "/v1/ingest" }).post(
    "/helius",
    async ({ request }) => {
      if (!secretMatches(request.headers.get("authorization"), deps.webhookSecret()))
        throw new ApiError(401, "UNAUTHORIZED", "the Authorization header does not match the webhook secret");
      const decoded = await deps.decoder.decode(await request.text(), "helius").catch((err) => {
        // the decoder's fault, not the sender's: nothing stored, Helius retries
        if (!(err instanceof DecoderUnavailable)) throw err;
        deps.log.error("webhook body not decoded", { err });
        throw new ApiError(503, "UNAVAILABLE", "the webhook could not be decoded here; nothing was stored, retry shortly", undefined, { "retry-after": "1" });
      });
      if (!decoded.ok) throw new ApiError(400, "VALIDATION_ERROR", decoded.message);
      const envelopes = decoded.envelopes;
      try {
        await deps.bus.publish(envelopes);
      } catch (err) {
        if (err instanceof SinkOverloaded) {
          deps.log.warn("webhook batch refused: storage is behind", { count: envelopes.length, reason: err.message });
          throw new ApiError(503, "OVERLOADED", "storage is behind; nothing was stored, retry shortly", undefined, { "retry-after": "2" });
        }
        deps.log.error("webhook batch not stored", { count: envelopes.length, err: err as Error });
        throw new ApiError(503, "UNAVAILABLE", "storage is not available; nothing was stored, retry later", undefined, { "retry-after": "1" });
      }
      const undecodable = envelopes.filter((e) => e.status === "undecodable").length;
      return { received: envelopes.length, undecodable };
    },
    { parse: "none" },
  );
