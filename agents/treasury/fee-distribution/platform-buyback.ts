/**
 * The platform-token budget at work: its share of every run's claims (platformBurn % and the
 * split's rounding remainders, `fee_distributions.platform_lamports`) less what platform
 * buybacks spent, spent on PLATFORM_TOKEN_MINT, then burned: on the pool it trades in when it
 * is a platform coin (quoted in SOL), otherwise through Jupiter's Swap API
 * (jupiter-swap.ts; the record's `venue` then stays null, the batch's result names the
 * aggregator and route). Each step is its own treasury transaction (the 'buyback.*' builders
 * with the treasury as payer):
 *
 *   opening  the treasury's token account of the platform token, once (so the swap's SOL is
 *            all spent on the token: ingest counts the treasury's SOL and wrapped-SOL loss in
 *            a transaction where its platform-token balance rose as the buyback's cost)
 *   buying   the swap (the budget, at most PLATFORM_BUYBACK_MAX_LAMPORTS at a time; 'buyback.swap'
 *            on a platform pool, 'buyback.jupiter' through the aggregator)
 *   burning  the burn of what the swap received, in the next transaction (a burn in the
 *            same transaction would leave the balance unchanged: no buyback to count)
 *   done | failed
 *
 * A buyback starts from the job's tick (it reads the chain: the pool or the mint, whether the
 * account exists; through Jupiter, a quote that fits: an aggregator that cannot be reached
 * leaves the budget waiting for the next tick); its steps follow from `onSettled` (no
 * network), like an agent's buyback. A swap that fails (or is never built) ends the buyback
 * `failed` with no swap signature: its lamports are back in the budget.
 */
import { PublicKey } from "@solana/web3.js";
import type { Sql } from "../../../infra/postgres";
import type { Logger } from "../../../infra/log";
import type { SolanaRpc } from "../../../infra/solana-rpc";
import type { ConfigRegistry } from "../../../ingest/contract/configs";
import { ApiError } from "../../../api/errors";
import { coinPools, quoteAt } from "../../../api/pools/service";
import { inTx } from "../../../api/daemons/store";
import { coinAccountOf, quotedInSol, tokenProgramOf } from "../../swaps/buy";
import type { BatchRow } from "../batches";
import { enqueuePayments } from "../batches";
import type { OwnerHandlers } from "../owners";
import { livePool } from "../buybacks/builders";
import { BURN_BUILDER, SWAP_BUILDER } from "../buybacks/service";
import { checkBuyQuote, JupiterRefused, JupiterUnavailable, WRAPPED_SOL_MINT, type JupiterClient } from "../../swaps/jupiter";
import { JUPITER_BUILDER, mintInfo } from "./jupiter-swap";

export const PLATFORM_BUYBACK = "platform_buyback";
export const OPEN_BUILDER = "buyback.open";
/** The budget waits until it reaches this (0.01 SOL): a smaller swap is mostly fees. */
export const PLATFORM_BUYBACK_MIN_LAMPORTS = 10_000_000n;
/** One swap spends at most this (1 SOL); a larger budget is spent over several buybacks. */
export const PLATFORM_BUYBACK_MAX_LAMPORTS = 1_000_000_000n;
export const PLATFORM_BUYBACK_SLIPPAGE_BPS = 100;

/** The budget: the platform's part of every run's claims, less what buybacks spent or are spending. */
export async function platformBudget(sql: Sql): Promise<bigint> {
  const [r] = await sql<{ budget: string }[]>`
    SELECT ((SELECT COALESCE(sum(platform_lamports), 0) FROM fee_distributions)
          - (SELECT COALESCE(sum(lamports), 0) FROM platform_buybacks WHERE status IN ('opening', 'buying', 'burning', 'done') OR swap_signature IS NOT NULL))::text AS budget`;
  return BigInt(r!.budget);
}

export type PlatformBuybackDeps = { sql: Sql; rpc: SolanaRpc; configs: ConfigRegistry; log: Logger; jupiter?: JupiterClient | null };

/** How a buyback of `lamports` buys the token now: the swap's builder and the token's program; or why it waits. */
type Plan = { builder: string; tokenProgram: string };

/** On the platform pool the token trades in (a DBC or DAMM v2 pool quoted in SOL, a quote that goes through). */
async function onPlatformPool(deps: PlatformBuybackDeps, mint: string, lamports: bigint): Promise<Plan | string> {
  try {
    const pool = await livePool(deps, deps.rpc.connection, mint);
    if (!quotedInSol(pool.snapshot)) throw new ApiError(409, "NOT_SOL_QUOTED", "the platform token's pool is not quoted in SOL");
    quoteAt(pool.snapshot, mint, pool.decimals, { side: "buy", amount: lamports, slippageBps: PLATFORM_BUYBACK_SLIPPAGE_BPS });
    const s = pool.snapshot;
    const program = s.venue === "dbc" ? tokenProgramOf(s.config.tokenType) : tokenProgramOf(s.state.tokenAMint.toBase58() === mint ? s.state.tokenAFlag : s.state.tokenBFlag);
    return { builder: SWAP_BUILDER, tokenProgram: program.toBase58() };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return `the platform token cannot be bought on its platform pool now (${e.code})`;
  }
}

/** Through Jupiter (not a platform coin): a mint of a token program, and a quote that fits the buy now. */
async function throughJupiter(deps: PlatformBuybackDeps, jupiter: JupiterClient, mint: string, lamports: bigint): Promise<Plan | string> {
  const info = await mintInfo(deps.rpc.connection, mint);
  if (!info) return "PLATFORM_TOKEN_MINT is not a token mint on this cluster";
  try {
    const quote = await jupiter.quote({ inputMint: WRAPPED_SOL_MINT, outputMint: mint, amount: lamports, slippageBps: PLATFORM_BUYBACK_SLIPPAGE_BPS });
    checkBuyQuote(quote, { outputMint: mint, lamports, slippageBps: PLATFORM_BUYBACK_SLIPPAGE_BPS });
  } catch (e) {
    if (!(e instanceof JupiterUnavailable || e instanceof JupiterRefused)) throw e;
    return `Jupiter cannot buy the platform token now: ${e.message}`;
  }
  return { builder: JUPITER_BUILDER, tokenProgram: info.tokenProgram };
}

const isPlatformCoin = (sql: Sql, mint: string) =>
  coinPools(sql, mint).then(
    () => true,
    (e) => (e instanceof ApiError && e.status === 404 ? false : Promise.reject(e)),
  );

/**
 * Starts a platform buyback when none is open and the budget reaches the minimum; its id, or
 * null (and why, in the log). A platform coin is bought on its pool; any other token through
 * Jupiter when the process has a client for it (`jupiter`); either waits (the next tick tries
 * again) while its venue cannot take the buy.
 */
export async function startPlatformBuyback(deps: PlatformBuybackDeps, o: { treasury: string; mint: string }): Promise<bigint | null> {
  const [open] = await deps.sql`SELECT id FROM platform_buybacks WHERE status IN ('opening', 'buying', 'burning')`;
  if (open) return null;
  const budget = await platformBudget(deps.sql);
  if (budget < PLATFORM_BUYBACK_MIN_LAMPORTS) return null;
  const lamports = budget < PLATFORM_BUYBACK_MAX_LAMPORTS ? budget : PLATFORM_BUYBACK_MAX_LAMPORTS;
  const plan = (await isPlatformCoin(deps.sql, o.mint))
    ? await onPlatformPool(deps, o.mint, lamports)
    : deps.jupiter
      ? await throughJupiter(deps, deps.jupiter, o.mint, lamports)
      : "the platform token is not a platform coin and this process has no swap aggregator";
  if (typeof plan === "string") {
    deps.log.info("platform buyback waits", { mint: o.mint, budget: budget.toString(), why: plan });
    return null;
  }
  const account = coinAccountOf(new PublicKey(o.treasury), o.mint, plan.tokenProgram);
  const opened = (await deps.rpc.getAccounts([account.toBase58()]))[0] != null;
  return inTx(deps.sql, async (tx) => {
    const [row] = await tx<{ id: bigint }[]>`
      INSERT INTO platform_buybacks (mint, lamports, status) VALUES (${o.mint}, ${lamports.toString()}, ${opened ? "buying" : "opening"})
      ON CONFLICT DO NOTHING RETURNING id`;
    if (!row) return null;
    await enqueuePayments(tx, {
      ownerKind: PLATFORM_BUYBACK,
      ownerId: row.id.toString(),
      payer: { kind: "treasury", address: o.treasury },
      custom: [
        opened ? swapBatch(plan.builder, o.mint, lamports) : { builder: OPEN_BUILDER, params: { mint: o.mint, tokenProgram: plan.tokenProgram, then: plan.builder }, lamports: 0n },
      ],
    });
    deps.log.info("platform buyback started", { id: row.id.toString(), mint: o.mint, lamports: lamports.toString(), opening: !opened, swap: plan.builder });
    return row.id;
  });
}

const swapBatch = (builder: string, mint: string, lamports: bigint) => ({ builder, params: { mint, lamports: lamports.toString(), slippageBps: PLATFORM_BUYBACK_SLIPPAGE_BPS }, lamports });
const text = (r: Record<string, unknown> | null, key: string) => (r && (typeof r[key] === "string" || typeof r[key] === "number") ? String(r[key]) : null);

type Locked = { id: bigint; mint: string; lamports: bigint; status: string };

async function fail(tx: Sql, id: bigint, error: string) {
  await tx`UPDATE platform_buybacks SET status = 'failed', error = ${error}, completed_at = now() WHERE id = ${id.toString()}`;
}

/** The next step when a platform buyback's batch settles (inside the settling transaction). */
export async function settlePlatformBuyback(tx: Sql, batch: BatchRow): Promise<void> {
  const [b] = await tx<Locked[]>`SELECT id, mint, lamports, status FROM platform_buybacks WHERE id = ${batch.owner_id} FOR UPDATE`;
  if (!b || b.status === "done" || b.status === "failed") return;
  const next = (custom: Parameters<typeof enqueuePayments>[1]["custom"]) =>
    enqueuePayments(tx, { ownerKind: PLATFORM_BUYBACK, ownerId: b.id.toString(), payer: { kind: "treasury", address: batch.payer }, custom });
  const why = `${batch.error ?? batch.status}`;
  if (batch.builder === OPEN_BUILDER) {
    if (batch.status !== "confirmed") return fail(tx, b.id, `the treasury's token account could not be opened: ${why}`);
    // the swap chosen when the buyback started (an open batch of before it named none: the platform pool's)
    await next([swapBatch(text(batch.params, "then") ?? SWAP_BUILDER, b.mint, BigInt(b.lamports))]);
    await tx`UPDATE platform_buybacks SET status = 'buying' WHERE id = ${b.id.toString()}`;
    return;
  }
  const r = batch.result;
  if (batch.builder === SWAP_BUILDER || batch.builder === JUPITER_BUILDER) {
    if (batch.status !== "confirmed") return fail(tx, b.id, `the swap did not go through: ${why}`);
    const bought = BigInt(text(r, "tokensReceived") ?? "0");
    await tx`UPDATE platform_buybacks SET venue = ${text(r, "venue")}, swap_signature = ${batch.signature}, atoms_bought = ${bought.toString()} WHERE id = ${b.id.toString()}`;
    if (bought === 0n) {
      await tx`UPDATE platform_buybacks SET status = 'done', completed_at = now() WHERE id = ${b.id.toString()}`;
      return;
    }
    await next([{ builder: BURN_BUILDER, params: { mint: b.mint, amount: bought.toString(), decimals: Number(text(r, "decimals")), tokenProgram: text(r, "tokenProgram") }, lamports: 0n }]);
    await tx`UPDATE platform_buybacks SET status = 'burning' WHERE id = ${b.id.toString()}`;
    return;
  }
  if (batch.builder === BURN_BUILDER) {
    if (batch.status !== "confirmed") return fail(tx, b.id, `the burn did not go through (${why}); what was bought stays in the treasury`);
    await tx`
      UPDATE platform_buybacks SET burn_signature = ${batch.signature}, atoms_burned = ${text(r, "tokensBurned") ?? text(batch.params, "amount")},
        status = 'done', completed_at = now()
      WHERE id = ${b.id.toString()}`;
  }
}

export const platformBuybackOwner: OwnerHandlers = { onSettled: settlePlatformBuyback };
