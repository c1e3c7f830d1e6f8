/**
 * Coin metadata (the JSON at the pool's `uri`): image and description for coins
 * discovered on-chain. Fetched with the safe fetcher, retried with backoff, never
 * overwriting what a launch set.
 */
import * as v from "valibot";
import type { Sql } from "../infra/postgres";
import type { Logger } from "../infra/log";
import { safeFetch, SafeFetchError, type SafeFetchOptions } from "../infra/safe-fetch";

const MetadataJson = v.object({
  image: v.optional(v.unknown()),
  description: v.optional(v.unknown()),
});

export type MetadataFetchOptions = SafeFetchOptions & { ipfsGateway: string };

/** `ipfs://<cid>/<path>` → the gateway's https URL; other URLs unchanged. */
export function resolveUri(uri: string, ipfsGateway: string): string {
  return uri.startsWith("ipfs://") ? ipfsGateway.replace(/\/+$/, "") + "/" + uri.slice("ipfs://".length).replace(/^ipfs\//, "") : uri;
}

export async function fetchCoinMetadata(uri: string, opts: MetadataFetchOptions): Promise<{ imageUrl: string; description: string }> {
  const { bytes } = await safeFetch(resolveUri(uri, opts.ipfsGateway), opts);
  const parsed = v.safeParse(MetadataJson, JSON.parse(new TextDecoder().decode(bytes)));
  if (!parsed.success) throw new Error("metadata is not a JSON object");
  const image = typeof parsed.output.image === "string" ? resolveUri(parsed.output.image.trim(), opts.ipfsGateway) : "";
  const description = typeof parsed.output.description === "string" ? parsed.output.description.trim().slice(0, 500) : "";
  return { imageUrl: image.startsWith("https://") ? image : "", description };
}

export type CoinMetadataResolver = (uri: string) => Promise<{ imageUrl: string; description: string }>;

/**
 * Fetches metadata of coins not checked yet (or failed, with backoff); returns how many were tried.
 * `resolve` replaces the network fetch (the simulator's coins, whose URIs point nowhere).
 */
export async function refreshCoinMetadata(deps: { sql: Sql; log: Logger; options: MetadataFetchOptions; resolve?: CoinMetadataResolver; limit?: number; concurrency?: number }): Promise<number> {
  const resolve = deps.resolve ?? ((uri: string) => fetchCoinMetadata(uri, deps.options));
  const due = await deps.sql<{ mint: string; metadata_uri: string }[]>`
    SELECT mint, metadata_uri FROM agents
    WHERE metadata_uri <> ''
      AND (metadata_checked_at IS NULL
           OR (metadata_error IS NOT NULL AND metadata_attempts < 6
               AND metadata_checked_at < now() - make_interval(secs => 30 * power(2, metadata_attempts))))
    ORDER BY created_at DESC LIMIT ${deps.limit ?? 50}`;
  let next = 0;
  await Promise.all(
    Array.from({ length: deps.concurrency ?? 4 }, async () => {
      while (next < due.length) {
        const { mint, metadata_uri } = due[next++]!;
        try {
          const meta = await resolve(metadata_uri);
          await deps.sql`
            UPDATE agents SET
              image_url = CASE WHEN image_url = '' THEN ${meta.imageUrl} ELSE image_url END,
              description = CASE WHEN description = '' THEN ${meta.description} ELSE description END,
              metadata_checked_at = now(), metadata_attempts = metadata_attempts + 1, metadata_error = NULL, updated_at = now()
            WHERE mint = ${mint}`;
        } catch (err) {
          // What happened on the network (SafeFetchError.detail) is for the log and this internal column, never for clients.
          const message = (err instanceof SafeFetchError ? err.detail : (err as Error).message).slice(0, 300);
          deps.log.debug("coin metadata not fetched", { mint, uri: metadata_uri, err: message });
          await deps.sql`
            UPDATE agents SET metadata_checked_at = now(), metadata_attempts = metadata_attempts + 1, metadata_error = ${message}
            WHERE mint = ${mint}`;
        }
      }
    }),
  );
  return due.length;
}
