/**
 * The launches table (sql/postgres/0004_launches.sql): every read and write of a
 * launch's row, so the state machine in service.ts reads as a state machine.
 */
import type { Sql } from "../../infra/postgres";
import type { CreateRequest } from "./model";

export type LaunchStatus = "building" | "awaiting_signature" | "submitted" | "confirmed" | "expired" | "failed";
export type QuoteView = { kind: "sol" } | { kind: "stock"; ticker: string; symbol: string; mint: string; decimals: number };

export type LaunchRow = {
  id: string;
  api_key_id: string;
  idempotency_key: string;
  request_hash: Uint8Array;
  request: CreateRequest;
  status: LaunchStatus;
  build_lease_until: Date | null;
  creator: string;
  config: string;
  quote: QuoteView;
  first_buy_lamports: bigint | null;
  vault: string | null;
  mint: string | null;
  pool: string | null;
  image_url: string | null;
  metadata_uri: string | null;
  message: Uint8Array | null;
  transaction: Uint8Array | null;
  last_valid_block_height: bigint | null;
  expires_at: Date | null;
  signature: string | null;
  signed_transaction: Uint8Array | null;
  error_code: string | null;
  error_message: string | null;
  first_response: unknown;
  created_at: Date;
  updated_at: Date;
};

/** How long a create may hold a launch in `building` before another request may take it over. */
export const BUILD_LEASE_SECONDS = 30;

export type NewLaunch = Pick<LaunchRow, "id" | "api_key_id" | "idempotency_key" | "request" | "creator" | "config" | "quote" | "first_buy_lamports"> & {
  request_hash: Buffer;
};

export type Built = {
  vault: string;
  mint: string;
  pool: string;
  image_url: string;
  metadata_uri: string;
  message: Uint8Array;
  transaction: Uint8Array;
  last_valid_block_height: number;
  expires_at: Date;
};

export function launchStore(sql: Sql) {
  return {
    byKey: async (apiKeyId: string, idempotencyKey: string) =>
      (await sql<LaunchRow[]>`SELECT * FROM launches WHERE api_key_id = ${apiKeyId} AND idempotency_key = ${idempotencyKey}`)[0] ?? null,

    byId: async (id: string, apiKeyId: string) => (await sql<LaunchRow[]>`SELECT * FROM launches WHERE id = ${id} AND api_key_id = ${apiKeyId}`)[0] ?? null,

    /** Claims the idempotency key: the new row, or null when another request holds it. */
    async reserve(l: NewLaunch): Promise<LaunchRow | null> {
      const rows = await sql<LaunchRow[]>`
        INSERT INTO launches (id, api_key_id, idempotency_key, request_hash, request, status, build_lease_until, creator, config, quote, first_buy_lamports)
        VALUES (${l.id}, ${l.api_key_id}, ${l.idempotency_key}, ${l.request_hash}, ${sql.json(l.request as never)}, 'building',
                now() + make_interval(secs => ${BUILD_LEASE_SECONDS}), ${l.creator}, ${l.config}, ${sql.json(l.quote as never)}, ${l.first_buy_lamports})
        ON CONFLICT (api_key_id, idempotency_key) DO NOTHING
        RETURNING *`;
      return rows[0] ?? null;
    },

    /** Takes over a `building` launch whose lease ran out (its create died); null if someone holds it. */
    async takeOver(id: string): Promise<LaunchRow | null> {
      const rows = await sql<LaunchRow[]>`
        UPDATE launches SET build_lease_until = now() + make_interval(secs => ${BUILD_LEASE_SECONDS}), updated_at = now()
        WHERE id = ${id} AND status = 'building' AND (build_lease_until IS NULL OR build_lease_until < now())
        RETURNING *`;
      return rows[0] ?? null;
    },

    /** Holds a built launch in `building` for a rebuild (with a lease, like a create); null if it moved meanwhile. */
    async beginRebuild(id: string, from: LaunchStatus): Promise<LaunchRow | null> {
      const rows = await sql<LaunchRow[]>`
        UPDATE launches SET status = 'building', build_lease_until = now() + make_interval(secs => ${BUILD_LEASE_SECONDS}), updated_at = now()
        WHERE id = ${id} AND status = ${from}
        RETURNING *`;
      return rows[0] ?? null;
    },

    /** Frees the key of a create that failed before anything was handed out, so a retry starts over. */
    release: (id: string) => sql`DELETE FROM launches WHERE id = ${id} AND status = 'building'`,

    /** Stores a built transaction; `firstResponse` is kept only by the first build (the create's answer). */
    async saveBuilt(id: string, b: Built, firstResponse: unknown | null): Promise<LaunchRow> {
      const rows = await sql<LaunchRow[]>`
        UPDATE launches SET
          status = 'awaiting_signature', build_lease_until = NULL,
          vault = ${b.vault}, mint = ${b.mint}, pool = ${b.pool}, image_url = ${b.image_url}, metadata_uri = ${b.metadata_uri},
          message = ${Buffer.from(b.message)}, transaction = ${Buffer.from(b.transaction)},
          last_valid_block_height = ${b.last_valid_block_height}, expires_at = ${b.expires_at},
          signature = NULL, signed_transaction = NULL, error_code = NULL, error_message = NULL,
          first_response = COALESCE(first_response, ${firstResponse === null ? null : sql.json(firstResponse as never)}),
          updated_at = now()
        WHERE id = ${id}
        RETURNING *`;
      return rows[0]!;
    },

    /** Moves a launch from one of `from` to `to`; null when it was no longer in `from` (someone else moved it). */
    async move(
      id: string,
      from: LaunchStatus[],
      to: LaunchStatus,
      set: { signature?: string; signed_transaction?: Uint8Array; error?: { code: string; message: string } | null } = {},
    ): Promise<LaunchRow | null> {
      const rows = await sql<LaunchRow[]>`
        UPDATE launches SET status = ${to},
          signature = COALESCE(${set.signature ?? null}, signature),
          signed_transaction = COALESCE(${set.signed_transaction ? Buffer.from(set.signed_transaction) : null}, signed_transaction),
          error_code = ${set.error === undefined ? sql`error_code` : set.error?.code ?? null},
          error_message = ${set.error === undefined ? sql`error_message` : set.error?.message ?? null},
          updated_at = now()
        WHERE id = ${id} AND status IN ${sql(from)}
        RETURNING *`;
      return rows[0] ?? null;
    },

    /**
     * Keeps the signed bytes and their signature before they are sent, so nothing that may
     * land goes unrecorded. The first bytes recorded for a build stay (a later submit of the
     * same message sends them again): only one signature per build is ever in flight.
     * Null when the launch is no longer awaiting a signature or submitted.
     */
    async recordSigned(id: string, signature: string, raw: Uint8Array): Promise<LaunchRow | null> {
      const rows = await sql<LaunchRow[]>`
        UPDATE launches SET
          signature = COALESCE(signature, ${signature}),
          signed_transaction = COALESCE(signed_transaction, ${Buffer.from(raw)}),
          updated_at = CASE WHEN signature IS NULL THEN now() ELSE updated_at END
        WHERE id = ${id} AND status IN ('awaiting_signature', 'submitted')
        RETURNING *`;
      return rows[0] ?? null;
    },

    /** Launches a create made in the last 24 hours with this key, and when the oldest of them leaves the window. */
    async recentCount(apiKeyId: string): Promise<{ count: number; oldest: Date | null }> {
      const [r] = await sql<{ count: bigint; oldest: Date | null }[]>`
        SELECT count(*) AS count, min(created_at) AS oldest FROM launches
        WHERE api_key_id = ${apiKeyId} AND created_at > now() - interval '24 hours'`;
      return { count: Number(r!.count), oldest: r!.oldest };
    },

    /**
     * What the tracker watches: sent and waiting for the chain, built and maybe past their block
     * height, and (for a while) sends refused in preflight whose earlier send may still land.
     */
    open: () => sql<LaunchRow[]>`
      SELECT * FROM launches
      WHERE status IN ('awaiting_signature', 'submitted')
         OR (status = 'expired' AND error_code = 'SEND_FAILED' AND signature IS NOT NULL AND updated_at > now() - interval '10 minutes')
      ORDER BY updated_at LIMIT 500`,

    /** Confirmed launches whose agent is missing or is not theirs (a confirmation that stopped half-way, before it was one transaction). */
    confirmedWithoutAgent: () => sql<LaunchRow[]>`
      SELECT l.* FROM launches l LEFT JOIN agents a ON a.mint = l.mint
      WHERE l.status = 'confirmed' AND l.mint IS NOT NULL AND (a.mint IS NULL OR a.launch_id IS DISTINCT FROM l.id)
      ORDER BY l.updated_at LIMIT 100`,

    saveVaultKey: (vault: string, launchId: string, sealed: Uint8Array) =>
      sql`INSERT INTO vault_keys (vault, launch_id, sealed) VALUES (${vault}, ${launchId}, ${Buffer.from(sealed)}) ON CONFLICT (vault) DO NOTHING`,

    vaultKey: async (vault: string) => (await sql<{ sealed: Uint8Array }[]>`SELECT sealed FROM vault_keys WHERE vault = ${vault}`)[0]?.sealed ?? null,
  };
}
export type LaunchStore = ReturnType<typeof launchStore>;
