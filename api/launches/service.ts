/**
 * The launch state machine (spec: "Launch (Launch API)"): create with an idempotency
 * key, submit the creator-signed transaction, rebuild an expired one, and the
 * confirmation that makes the agent. Routes (index.ts) only parse and answer.
 */
import { createHash, randomUUID } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import type { Connection } from "@solana/web3.js";
import { ApiError, validationError } from "../errors";
import type { Logger } from "../../infra/log";
import type { Sql } from "../../infra/postgres";
import type { ConfigRegistry, PlatformConfig } from "../../ingest/contract/configs";
import { isLaunchId, parseCreateBody, textFields, type CreateRequest } from "./model";
import { launchStore, type LaunchRow, type LaunchStatus, type QuoteView, type Built } from "./store";
import { builtView, statusView, submitView } from "./views";
import { upsertLaunchAgent } from "./launch-agent";
import { prepareLaunchMedia } from "./media";
import type { Firewall } from "../firewall/firewall";
import type { MediaStore } from "../../infra/media-store";
import { PinningError } from "../../infra/media-store";
import type { ApiKeyRecord } from "./api-keys";
import { buildLaunchTransaction } from "../../infra/solana-tx/launch-tx";
import { checkSignedTransaction } from "../../infra/solana-tx/verify";
import { SendRejected, UpstreamError, type LaunchChain } from "../../infra/solana-tx/chain";
import { decryptSecretKey, encryptSecretKey } from "../../infra/vault-keys";
import { askChain, type Landing } from "./landing";

/** Solana's target slot time: how `expiresAt` is estimated from the block height. */
export const SLOT_MS = 400;

export type LaunchDeps = {
  sql: Sql;
  log: Logger;
  configs: ConfigRegistry;
  firewall: Firewall;
  media: MediaStore;
  /** null when no SOLANA_RPC_URL: launches answer 503 SIGNER_UNAVAILABLE */
  chain: LaunchChain | null;
  connection: Connection | null;
  vaultEncryptionKey: Uint8Array | null;
  publicBaseUrl: string;
  allowLoopbackFetch: boolean;
  submitWaitMs: number;
  dailyQuota: number;
  /** ComputeBudget price of launch transactions (micro-lamports per CU); 0 = none */
  priorityFeeMicroLamports?: number;
  /** how often submit asks the cluster while it waits (ms) */
  pollMs?: number;
  /** called with an agent whose launch confirmed after its pool was already seen on-chain */
  onAgentChanged?: (mint: string) => Promise<void>;
};

export type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** Stable JSON (sorted keys) so the same body in another key order is the same request. */
export function canonicalJson(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonicalJson).join(",")}]`;
  if (x && typeof x === "object")
    return `{${Object.keys(x).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((x as Record<string, unknown>)[k])}`).join(",")}}`;
  return JSON.stringify(x) ?? "null";
}
const sha256 = (s: string) => createHash("sha256").update(s).digest();

export function createLaunchService(deps: LaunchDeps) {
  /** 502 with a message of ours: the upstream's own text (hosts, ports, internals) is logged, never returned. */
  const upstreamFailure = (what: string, err: unknown) => {
    // an RPC URL may carry its provider's key in the query: never logged
    const text = ((err as Error)?.message ?? String(err)).replace(/([?&](?:api[-_]?key|token)=)[^&\s"']+/gi, "$1[redacted]");
    deps.log.warn("launch upstream failed", { what, err: text });
    return new ApiError(502, "UPSTREAM_ERROR", `${what} did not answer as expected; nothing was changed, retry with the same Idempotency-Key`);
  };
  const store = launchStore(deps.sql);
  const pollMs = deps.pollMs ?? 500;
  const view = { built: (r: LaunchRow) => builtView(r, deps.publicBaseUrl), status: (r: LaunchRow) => statusView(r, deps.publicBaseUrl) };

  function targetConfig(body: CreateRequest): { config: PlatformConfig; quote: QuoteView } {
    if (body.goal === "stock") {
      const ticker = body.stock!.ticker;
      const cfg = deps.configs.all.find((c) => c.role === "stock" && c.quote.ticker === ticker);
      if (!cfg) {
        const known = deps.configs.all.filter((c) => c.role === "stock").map((c) => c.quote.ticker);
        throw validationError([{ field: "stock.ticker", message: known.length ? `must be one of ${known.join(", ")} (GET /v1/stocks)` : "no stock is open for launches here (GET /v1/stocks)" }]);
      }
      return { config: cfg, quote: { kind: "stock", ticker, symbol: cfg.quote.symbol, mint: cfg.quote.mint, decimals: cfg.quote.decimals } };
    }
    if (!deps.configs.launch) throw new ApiError(503, "SIGNER_UNAVAILABLE", "this deployment has no launch config (PLATFORM_CONFIGS launch:<address>); launches cannot be built");
    return { config: deps.configs.launch, quote: { kind: "sol" } };
  }

  function signerOrThrow(): { chain: LaunchChain; connection: Connection; key: Uint8Array } {
    if (!deps.vaultEncryptionKey) throw new ApiError(503, "SIGNER_UNAVAILABLE", "the launch signer is not configured (VAULT_ENCRYPTION_KEY); retry later with the same Idempotency-Key");
    if (!deps.chain || !deps.connection) throw new ApiError(503, "SIGNER_UNAVAILABLE", "no Solana RPC is configured (SOLANA_RPC_URL); retry later with the same Idempotency-Key");
    return { chain: deps.chain, connection: deps.connection, key: deps.vaultEncryptionKey };
  }

  async function quotaOrThrow(apiKeyId: string) {
    const { count, oldest } = await store.recentCount(apiKeyId);
    if (count < deps.dailyQuota) return;
    const retryAfter = oldest ? Math.max(1, Math.ceil((oldest.getTime() + 86_400_000 - Date.now()) / 1000)) : 3600;
    throw new ApiError(429, "LAUNCH_QUOTA", `this key made ${count} launches in the last 24 hours, its limit; retry after ${retryAfter} s`, undefined, { "retry-after": String(retryAfter) });
  }

  /** The vault's keypair: new on the first build, the same one (unsealed) on every rebuild. */
  async function vaultFor(row: LaunchRow, key: Uint8Array): Promise<{ keypair: Keypair; fresh: boolean }> {
    if (!row.vault) return { keypair: Keypair.generate(), fresh: true };
    const sealed = await store.vaultKey(row.vault);
    if (!sealed) throw new ApiError(503, "SIGNER_UNAVAILABLE", "the agent wallet's key is missing; contact the platform");
    try {
      return { keypair: Keypair.fromSecretKey(decryptSecretKey(sealed, key, row.vault)), fresh: false };
    } catch {
      throw new ApiError(503, "SIGNER_UNAVAILABLE", "the agent wallet's key cannot be unsealed with the configured VAULT_ENCRYPTION_KEY");
    }
  }

  /** Blockhash, fresh mint, the SDK-built transaction signed by mint and vault. */
  async function buildTransaction(row: LaunchRow, media: { image_url: string; metadata_uri: string }): Promise<{ built: Built; sealedVault: Uint8Array | null }> {
    const { chain, connection, key } = signerOrThrow();
    const vault = await vaultFor(row, key);
    const mint = Keypair.generate();
    const r = row.request;
    try {
      const [{ blockhash, lastValidBlockHeight }, height] = await Promise.all([chain.latestBlockhash(), chain.blockHeight()]);
      const tx = await buildLaunchTransaction({
        connection,
        config: row.config,
        creator: row.creator,
        mint,
        vault: vault.keypair,
        name: r.name,
        symbol: r.symbol,
        uri: media.metadata_uri,
        firstBuyLamports: row.first_buy_lamports,
        blockhash,
        lastValidBlockHeight,
        priorityFeeMicroLamports: deps.priorityFeeMicroLamports ?? 0,
      });
      return {
        built: {
          vault: vault.keypair.publicKey.toBase58(),
          mint: mint.publicKey.toBase58(),
          pool: tx.pool,
          ...media,
          message: tx.message,
          transaction: tx.transaction,
          last_valid_block_height: lastValidBlockHeight,
          expires_at: new Date(Date.now() + Math.max(0, lastValidBlockHeight - height) * SLOT_MS),
        },
        sealedVault: vault.fresh ? encryptSecretKey(vault.keypair.secretKey, key, vault.keypair.publicKey.toBase58()) : null,
      };
    } catch (err) {
      if (err instanceof UpstreamError) throw upstreamFailure("the Solana RPC", err);
      throw err;
    }
  }

  /** Builds a reserved (or taken-over) launch and answers 201; on any failure the key is freed for a retry. */
  async function buildReserved(row: LaunchRow): Promise<Answer> {
    try {
      // the image is the last part of the request to validate: its refusals come before SIGNER_UNAVAILABLE
      const media = row.image_url && row.metadata_uri
        ? (signerOrThrow(), { image_url: row.image_url, metadata_uri: row.metadata_uri })
        : await prepareLaunchMedia(row.request, deps.media, { allowLoopback: deps.allowLoopbackFetch, beforeStoring: signerOrThrow });
      const { built, sealedVault } = await buildTransaction(row, media);
      if (sealedVault) await store.saveVaultKey(built.vault, row.id, sealedVault);
      const answer = view.built({ ...row, ...built, status: "awaiting_signature", last_valid_block_height: BigInt(built.last_valid_block_height) });
      const saved = await store.saveBuilt(row.id, built, answer);
      deps.log.info("launch built", { id: row.id, mint: saved.mint, pool: saved.pool });
      return { status: 201, body: saved.first_response };
    } catch (err) {
      if (!row.vault) await store.release(row.id).catch(() => {});
      else await store.move(row.id, ["building"], "expired").catch(() => {});
      if (err instanceof PinningError) throw upstreamFailure("the image pinning service", err);
      throw err;
    }
  }

  async function answerExisting(row: LaunchRow, requestHash: Buffer): Promise<Answer> {
    if (!requestHash.equals(Buffer.from(row.request_hash)))
      throw new ApiError(409, "IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with a different body; use a new key for a new launch");
    if (row.status === "building" && !row.first_response) {
      const mine = await store.takeOver(row.id);
      if (!mine) throw new ApiError(409, "LAUNCH_IN_PROGRESS", "this launch is still being prepared; retry in a few seconds with the same key", undefined, { "retry-after": "2" });
      return buildReserved(mine);
    }
    return { status: 201, body: row.first_response, headers: { "idempotent-replayed": "true" } };
  }

  async function create(apiKey: ApiKeyRecord, idempotencyKey: string, rawBody: unknown): Promise<Answer> {
    const requestHash = sha256(canonicalJson(rawBody));
    const existing = await store.byKey(apiKey.id, idempotencyKey);
    if (existing) return answerExisting(existing, requestHash);

    const body = parseCreateBody(rawBody);
    const blocked = deps.firewall.check(textFields(body));
    if (blocked) throw new ApiError(422, "FIREWALL_BLOCKED", `${blocked.field} was blocked by the safety filter: ${blocked.reason}`, { field: blocked.field });
    const target = targetConfig(body);
    await quotaOrThrow(apiKey.id);

    const reserved = await store.reserve({
      id: randomUUID(),
      api_key_id: apiKey.id,
      idempotency_key: idempotencyKey,
      request_hash: requestHash,
      request: body,
      creator: body.creator,
      config: target.config.address,
      quote: target.quote,
      first_buy_lamports: body.firstBuy ? BigInt(body.firstBuy.amount) : null,
    });
    if (!reserved) {
      const other = await store.byKey(apiKey.id, idempotencyKey);
      if (!other) throw new ApiError(409, "LAUNCH_IN_PROGRESS", "this launch is being prepared; retry in a few seconds with the same key", undefined, { "retry-after": "2" });
      return answerExisting(other, requestHash);
    }
    return buildReserved(reserved);
  }

  async function owned(apiKey: ApiKeyRecord, id: string): Promise<LaunchRow> {
    const row = isLaunchId(id) ? await store.byId(id, apiKey.id) : null;
    if (!row) throw new ApiError(404, "LAUNCH_NOT_FOUND", `no launch ${id.slice(0, 64)} made with this API key`);
    return row;
  }

  /**
   * The chain confirmed the launch: the coin exists, so does its agent. The status and the
   * agent are one Postgres transaction: a crash leaves both or neither (then the tracker
   * finds the launch still open and confirms it again).
   */
  async function confirm(row: LaunchRow, from: LaunchStatus[]): Promise<LaunchRow> {
    const moved = await deps.sql.begin(async (tx) => {
      const m = await launchStore(tx as unknown as Sql).move(row.id, from, "confirmed", { error: null });
      if (m) await upsertLaunchAgent(tx as unknown as Sql, m);
      return m;
    });
    if (!moved) return (await store.byId(row.id, row.api_key_id))!;
    await agentChanged(moved);
    deps.log.info("launch confirmed", { id: row.id, mint: moved.mint, signature: moved.signature });
    return moved;
  }

  const agentChanged = (l: LaunchRow) =>
    deps.onAgentChanged?.(l.mint!).catch((err) => deps.log.warn("agent directory refresh failed", { mint: l.mint, err: String(err) }));

  /** Gives confirmed launches their agent where a confirmation stopped half-way (before it was one transaction). */
  async function repairAgents(): Promise<number> {
    const missing = await store.confirmedWithoutAgent();
    for (const l of missing) {
      await upsertLaunchAgent(deps.sql, l);
      await agentChanged(l);
      deps.log.warn("launch agent repaired", { id: l.id, mint: l.mint });
    }
    return missing.length;
  }

  const failed = (row: LaunchRow, err: unknown) =>
    store.move(row.id, ["submitted", "awaiting_signature", "expired"], "failed", {
      error: { code: "LAUNCH_FAILED", message: `the transaction failed on-chain (${JSON.stringify(err).slice(0, 200)}); no coin was created: start a new launch with a new key` },
    });

  /** What the chain says of this launch's transaction (502 when the RPC does not answer). */
  async function landingOf(row: LaunchRow, chain: LaunchChain): Promise<Landing> {
    try {
      return (await askChain(chain, [row]))[0]!;
    } catch (err) {
      throw upstreamFailure("the Solana RPC", err);
    }
  }

  /**
   * Settles a launch whose transaction the chain knows (confirmed, failed or in flight): the
   * answer for it, or null when the chain does not know it (`can_land` or `gone`).
   */
  async function settle(row: LaunchRow, l: Landing, chain: LaunchChain): Promise<Answer | null> {
    if (l.kind === "confirmed") return { status: 200, body: submitView(await confirm(row, [row.status]), deps.publicBaseUrl) };
    if (l.kind === "failed") {
      const f = (await failed(row, l.err)) ?? row;
      throw new ApiError(422, "LAUNCH_FAILED", f.error_message ?? "the transaction failed on-chain; start a new launch");
    }
    if (l.kind === "in_flight") {
      const sent = (await store.move(row.id, [row.status], "submitted", { error: null })) ?? row;
      return awaitVerdict(sent, chain);
    }
    return null;
  }

  /** Waits up to submitWaitMs for the cluster's verdict; answers 200, 202 or 422. */
  async function awaitVerdict(row: LaunchRow, chain: LaunchChain): Promise<Answer> {
    const deadline = Date.now() + deps.submitWaitMs;
    for (;;) {
      const [state] = await chain.signatureStates([row.signature!]).catch(() => [null]);
      if (state?.err) {
        const f = (await failed(row, state.err)) ?? row;
        throw new ApiError(422, "LAUNCH_FAILED", f.error_message ?? "the transaction failed on-chain; start a new launch");
      }
      if (state?.confirmed) return { status: 200, body: submitView(await confirm(row, ["submitted", "awaiting_signature"]), deps.publicBaseUrl) };
      if (Date.now() + pollMs > deadline) break;
      await Bun.sleep(pollMs);
    }
    const now = (await store.byId(row.id, row.api_key_id)) ?? row;
    return { status: now.status === "confirmed" ? 200 : 202, body: submitView(now, deps.publicBaseUrl) };
  }

  async function submit(apiKey: ApiKeyRecord, id: string, signedTransaction: string): Promise<Answer> {
    const row = await owned(apiKey, id);
    if (row.status === "building") throw new ApiError(409, "NOT_BUILT", "nothing to sign yet; retry the create with the same Idempotency-Key");
    const check = checkSignedTransaction(signedTransaction, row.message!);
    if (!check.ok) throw new ApiError(400, check.code, check.message);
    if (row.status === "confirmed") return { status: 200, body: submitView(row, deps.publicBaseUrl) };
    if (row.status === "failed") throw new ApiError(422, "LAUNCH_FAILED", row.error_message ?? "the launch failed on-chain; start a new launch with a new key");
    if (row.status === "expired") {
      if (row.error_code === "SEND_FAILED") throw new ApiError(422, "SEND_FAILED", `${row.error_message ?? "the network rejected the transaction"}`);
      throw new ApiError(409, "EXPIRED", "the transaction expired before it landed; POST /v1/launches/{id}/rebuild for a fresh one");
    }
    const { chain } = signerOrThrow();

    if (row.status === "awaiting_signature") {
      // an earlier send whose answer was lost may have landed: ask before calling it expired
      const l = await landingOf(row, chain);
      const settled = await settle(row, l, chain);
      if (settled) return settled;
      if (l.kind === "gone") {
        await store.move(row.id, ["awaiting_signature"], "expired", { error: { code: "EXPIRED", message: "the transaction expired before it landed; rebuild it" } });
        throw new ApiError(409, "EXPIRED", "the transaction expired (block height passed lastValidBlockHeight); POST /v1/launches/{id}/rebuild for a fresh one");
      }
    }
    // recorded before sending: a send whose answer is lost is still tracked by its signature
    const recorded = await store.recordSigned(row.id, check.signature, check.raw);
    if (!recorded) return submit(apiKey, id, signedTransaction); // it moved meanwhile: answer for where it is now
    try {
      await chain.send(recorded.signed_transaction!);
    } catch (err) {
      if (err instanceof SendRejected && !/already been processed/i.test(err.message)) {
        // a resend of a transaction already in flight changes nothing: its first send decides
        if (recorded.status === "submitted") return awaitVerdict(recorded, chain);
        const message = `the network rejected the transaction: ${err.message.slice(0, 300)}; fund the creator's wallet if it is short of SOL, then rebuild`;
        await store.move(row.id, ["awaiting_signature"], "expired", { error: { code: "SEND_FAILED", message } });
        throw new ApiError(422, "SEND_FAILED", message, { logs: err.logs.slice(-10) });
      }
      if (!(err instanceof SendRejected)) {
        if (recorded.status === "submitted") return awaitVerdict(recorded, chain); // a resend that failed changes nothing
        throw upstreamFailure("sending to the Solana RPC", err);
      }
    }
    const sent = (await store.move(row.id, ["awaiting_signature"], "submitted")) ?? (await store.byId(row.id, apiKey.id))!;
    if (sent.status === "confirmed") return { status: 200, body: submitView(sent, deps.publicBaseUrl) };
    return awaitVerdict(sent, chain);
  }

  async function rebuild(apiKey: ApiKeyRecord, id: string): Promise<Answer> {
    const row = await owned(apiKey, id);
    const refuse = (code: string, message: string) => new ApiError(409, code, message);
    if (row.status === "building" && !row.first_response) throw refuse("NOT_BUILT", "nothing was built yet; retry the create with the same Idempotency-Key");
    if (row.status === "submitted") throw refuse("ALREADY_SUBMITTED", "the transaction was submitted; poll GET /v1/launches/{id} for the outcome");
    if (row.status === "confirmed") throw refuse("ALREADY_LAUNCHED", "this launch is confirmed: the coin and its agent exist");
    if (row.status === "failed") throw new ApiError(422, "LAUNCH_FAILED", "this launch failed on-chain; start a new launch with a new key");
    const { chain } = signerOrThrow();
    if (row.status === "building") {
      // a rebuild in progress, or one whose process died (its lease ran out)
      const mine = await store.takeOver(row.id);
      if (!mine) throw new ApiError(409, "LAUNCH_IN_PROGRESS", "a rebuild of this launch is in progress; retry in a few seconds", undefined, { "retry-after": "2" });
      return rebuildHeld(mine);
    }
    // a new mint with the same vault is safe only once the old transaction can never land
    const l = await landingOf(row, chain);
    if (l.kind === "confirmed") {
      await confirm(row, [row.status]);
      throw refuse("ALREADY_LAUNCHED", "the transaction landed after all: the coin and its agent exist; GET /v1/launches/{id}");
    }
    if (l.kind === "failed") {
      await failed(row, l.err);
      throw new ApiError(422, "LAUNCH_FAILED", "the transaction failed on-chain; start a new launch with a new key");
    }
    if (l.kind === "in_flight") {
      await store.move(row.id, [row.status], "submitted", { error: null });
      throw refuse("ALREADY_SUBMITTED", "the transaction sent earlier is being processed by the network; poll GET /v1/launches/{id} for the outcome");
    }
    if (l.kind === "can_land") {
      const waitSeconds = Math.max(1, Math.ceil(((row.expires_at?.getTime() ?? Date.now()) - Date.now()) / 1000) + 1);
      const what = row.signature ? "the transaction sent earlier can still land" : "the current transaction can still land";
      const next = row.signature ? "retry the rebuild after that" : "have it signed and submitted, or retry the rebuild after that";
      throw new ApiError(
        409,
        "STILL_VALID",
        `${what} (until block height ${row.last_valid_block_height}, about ${row.expires_at?.toISOString()}); ${next}`,
        undefined,
        { "retry-after": String(waitSeconds) },
      );
    }
    const mine = await store.beginRebuild(row.id, row.status);
    if (!mine) throw new ApiError(409, "LAUNCH_IN_PROGRESS", "this launch changed meanwhile; GET it and retry", undefined, { "retry-after": "1" });
    return rebuildHeld(mine);
  }

  /** Builds a launch this request holds in `building` (a rebuild): new blockhash and mint, same id and vault. */
  async function rebuildHeld(mine: LaunchRow): Promise<Answer> {
    const row = mine;
    try {
      const { built } = await buildTransaction(mine, { image_url: mine.image_url!, metadata_uri: mine.metadata_uri! });
      const saved = await store.saveBuilt(mine.id, built, null);
      deps.log.info("launch rebuilt", { id: row.id, mint: saved.mint });
      return { status: 200, body: view.built(saved) };
    } catch (err) {
      await store.move(row.id, ["building"], "expired");
      throw err;
    }
  }

  async function status(apiKey: ApiKeyRecord, id: string): Promise<Answer> {
    return { status: 200, body: view.status(await owned(apiKey, id)) };
  }

  return { create, submit, rebuild, status, confirm, failed, repairAgents, store };
}
export type LaunchService = ReturnType<typeof createLaunchService>;
