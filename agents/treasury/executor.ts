/**
 * The payment executor, in the `agents` process (and `npm start`): takes due batches
 * (FOR UPDATE SKIP LOCKED, with a lease), and moves each as far as it can go now:
 *
 *   queued  -> build (the builder's instructions, a fresh blockhash, the payer's key and any
 *              extra signers) -> RECORD the signed transaction (compare-and-set: one per
 *              attempt) -> built
 *   built / sent -> ask the chain about the recorded signature FIRST (getSignatureStatuses):
 *              confirmed -> settle confirmed; failed on-chain -> settle failed; seen, not yet
 *              confirmed -> wait; unknown and still valid -> send the same bytes (counted
 *              before the call) -> sent; unknown and past its last valid block height (read
 *              before the statuses) -> expired: queued again for a new attempt, or, out of
 *              attempts, settled expired.
 *
 * So after any crash the recorded transaction is re-checked by signature before anything is
 * rebuilt, and a batch gets a new transaction only once the old one can never land: no batch
 * pays twice, none is lost. A refusal of a transaction's first send (preflight: not enough
 * SOL, ...) fails the batch: it never reached the cluster. Keys that are not available here
 * (no VAULT_ENCRYPTION_KEY, no treasury key) leave batches waiting, never failed.
 *
 * Each transaction carries a memo `acp:batch:<id>:<attempt>` (batchMemo), so no two are alike;
 * a builder's prebuilt v0 transaction (an aggregator's swap) gets the executor's blockhash
 * instead of its own and no memo (builders.ts), and is recorded and re-checked the same way.
 *
 * TREASURY_EXECUTOR_CRASH_AT (tests only) kills this process with SIGKILL at a named step.
 */
import { randomUUID } from "node:crypto";
import bs58 from "bs58";
import { PublicKey, Transaction, TransactionInstruction, type Connection, type Keypair, type VersionedTransaction } from "@solana/web3.js";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import { SendRejected, type LaunchChain } from "../../infra/solana-tx/chain";
import { landing } from "../../api/launches/landing";
import type { BuilderRegistry } from "./builders";
import type { OwnerRegistry } from "./owners";
import { signerFor, SignerUnavailable, type SignerDeps } from "./signers";
import { transfersOf } from "./batches";
import { buildFailed, claimDue, currentTx, expire, markSending, markSent, record, recordedBefore, release, settle, type Claimed } from "./ledger";

/** SPL Memo v2 (the spl-memo package's MEMO_PROGRAM_ID; not a dependency here for one constant). */
export const MEMO_PROGRAM_ID = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");

/**
 * Every transaction carries a memo naming its batch and attempt: two batches paying the same
 * transfers from the same vault under one blockhash would otherwise be the same bytes, one
 * signature, and the chain would take the second for a duplicate of the first (and it would
 * look paid without paying). About 50 bytes of the 1232 a transaction may have.
 */
export const batchMemo = (b: { id: bigint }, attempt: number) =>
  new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(`acp:batch:${b.id}:${attempt}`, "utf8") });

export type CrashStep = "signed" | "recorded" | "sent" | "marked-sent" | "settled";

export type ExecutorOptions = {
  /** ms between turns when nothing more is due */
  intervalMs: number;
  leaseSeconds: number;
  /** batches one turn takes (worked on at once) */
  batchesPerTurn?: number;
  /** seconds before a sent, unconfirmed batch is looked at again */
  pollSeconds?: number;
  /** seconds before a batch that could not move (RPC down, key missing, builder error) is tried again */
  retrySeconds?: number;
  crashAt?: CrashStep | null;
};

export type ExecutorDeps = {
  sql: Sql;
  chain: LaunchChain;
  connection: Connection;
  builders: BuilderRegistry;
  owners: OwnerRegistry;
  signers: SignerDeps;
  log: Logger;
  options: ExecutorOptions;
};

/** What one turn did: batches taken, and the batches it settled by status. */
export type TurnReport = { taken: number; settled: Record<"confirmed" | "failed" | "expired", number> };

function crashPoint(deps: ExecutorDeps, step: CrashStep, b: Claimed): void | Promise<never> {
  if (deps.options.crashAt !== step) return;
  deps.log.warn("TREASURY_EXECUTOR_CRASH_AT: killing this process", { step, batch: b.id.toString() });
  process.kill(process.pid, "SIGKILL");
  return new Promise<never>(() => {});
}

/** One turn: take due batches and advance each. */
export async function runTurn(deps: ExecutorDeps): Promise<TurnReport> {
  const o = deps.options;
  for (const [kind, h] of deps.owners)
    if (h.beforeTurn) await h.beforeTurn().catch((err) => deps.log.error("treasury owner's work before the turn failed", { kind, err: err as Error }));
  const token = randomUUID();
  const batches = await claimDue(deps.sql, token, o.batchesPerTurn ?? 8, o.leaseSeconds);
  const report: TurnReport = { taken: batches.length, settled: { confirmed: 0, failed: 0, expired: 0 } };
  await Promise.all(
    batches.map(async (b) => {
      try {
        const end = await advance(deps, b);
        if (end) report.settled[end]++;
      } catch (err) {
        deps.log.error("payment batch could not move; tried again later", { batch: b.id.toString(), owner: `${b.owner_kind}:${b.owner_id}`, err: err as Error });
        await release(deps.sql, b, o.retrySeconds ?? 5, (err as Error).message).catch(() => undefined);
      }
    }),
  );
  for (const [kind, h] of deps.owners)
    if (h.publish) await h.publish().catch((err) => deps.log.error("publishing settled treasury actions failed", { kind, err: err as Error }));
  return report;
}

/** Moves one batch as far as it goes now; the status it settled in, if it did. */
async function advance(deps: ExecutorDeps, b: Claimed): Promise<"confirmed" | "failed" | "expired" | null> {
  const o = deps.options;
  const retry = o.retrySeconds ?? 5;
  const poll = o.pollSeconds ?? 2;
  // a few steps at most: build, send, look again (after an expiry: build, send, look again)
  for (let step = 0; step < 6; step++) {
    if (b.status === "queued") {
      const built = await build(deps, b);
      if (built === "waiting") return null;
      if (built === "failed") return "failed";
      b = { ...b, status: "built", signature: built, attempts: b.attempts + 1 };
      continue;
    }
    const t = await currentTx(deps.sql, b);
    if (!t) throw new Error(`batch ${b.id} is ${b.status} without its recorded transaction`);
    // the height first: a transaction landing between the two reads is then seen by the second
    const height = await deps.chain.blockHeight();
    const [state] = await deps.chain.signatureStates([t.signature]);
    const verdict = landing(height, state ?? null, Number(t.last_valid_block_height));
    if (verdict.kind === "confirmed") {
      const builder = deps.builders.get(b.builder);
      const result = builder?.afterConfirmed ? await builder.afterConfirmed({ batch: b, signature: t.signature, connection: deps.connection }) : undefined;
      if (await settle(deps.sql, deps.owners, b, { status: "confirmed", result })) await crashPoint(deps, "settled", b);
      return "confirmed";
    }
    if (verdict.kind === "failed") {
      await settle(deps.sql, deps.owners, b, { status: "failed", error: `failed on-chain: ${JSON.stringify(verdict.err)}`, err: verdict.err });
      return "failed";
    }
    if (verdict.kind === "in_flight") {
      await release(deps.sql, b, poll);
      return null;
    }
    if (verdict.kind === "gone") {
      const r = await expire(deps.sql, deps.owners, b, t.signature);
      if (r === "expired") return "expired";
      deps.log.info("payment transaction expired without landing; building a new one", { batch: b.id.toString(), signature: t.signature });
      b = { ...b, status: "queued", signature: null };
      continue;
    }
    // can_land: (re)send the recorded bytes, then look again
    if (step > 0 && b.status === "sent") {
      await release(deps.sql, b, poll);
      return null;
    }
    const before = await markSending(deps.sql, t.signature);
    try {
      await deps.chain.send(t.tx);
    } catch (err) {
      if (err instanceof SendRejected && before === 0) {
        await settle(deps.sql, deps.owners, b, { status: "failed", error: `refused by the cluster: ${err.message}`, err: { refused: err.message, logs: err.logs } });
        return "failed";
      }
      // may have gone out (a lost answer) or a resend refused: the signature tells, next time
      deps.log.warn("sending a payment transaction failed; checked again later", { batch: b.id.toString(), signature: t.signature, err: (err as Error).message });
      await release(deps.sql, b, retry);
      return null;
    }
    await crashPoint(deps, "sent", b);
    if (b.status === "built") {
      await markSent(deps.sql, b, t.signature);
      await crashPoint(deps, "marked-sent", b);
      b = { ...b, status: "sent" };
    }
  }
  await release(deps.sql, b, poll);
  return null;
}

/** queued -> built: the new transaction's signature, "waiting" (try later) or "failed" (for good). */
async function build(deps: ExecutorDeps, b: Claimed): Promise<string | "waiting" | "failed"> {
  const retry = deps.options.retrySeconds ?? 5;
  const builder = deps.builders.get(b.builder);
  if (!builder) {
    deps.log.warn("no builder registered for a payment batch in this process; left waiting", { batch: b.id.toString(), builder: b.builder });
    await release(deps.sql, b, retry, `no builder named ${b.builder} in this process`);
    return "waiting";
  }
  let key;
  try {
    key = await signerFor(deps.signers, b);
  } catch (err) {
    if (!(err instanceof SignerUnavailable)) throw err;
    deps.log.warn("payment batch waits for its key", { batch: b.id.toString(), payer: b.payer, why: err.message });
    await release(deps.sql, b, retry, err.message);
    return "waiting";
  }
  let raw: Uint8Array;
  let signature: string;
  let blockhash: { blockhash: string; lastValidBlockHeight: number };
  let result: Record<string, unknown> | null;
  try {
    const transfers = b.builder === "transfers" ? await transfersOf(deps.sql, b.id) : [];
    const built = await builder.build({ batch: b, payer: key.publicKey, transfers, connection: deps.connection });
    blockhash = await deps.chain.latestBlockhash();
    if ("prebuilt" in built) {
      raw = signPrebuilt(built.prebuilt, key, blockhash.blockhash);
      signature = bs58.encode(built.prebuilt.signatures[0]!);
    } else {
      const tx = new Transaction({ feePayer: key.publicKey, blockhash: blockhash.blockhash, lastValidBlockHeight: blockhash.lastValidBlockHeight });
      tx.add(...built.instructions, batchMemo(b, b.attempts + 1));
      tx.sign(key, ...(built.signers ?? []));
      raw = tx.serialize();
      signature = bs58.encode(tx.signature!);
    }
    result = built.result ?? null;
  } catch (err) {
    const failed = await buildFailed(deps.sql, deps.owners, b, (err as Error).message, retry);
    deps.log.warn("building a payment transaction failed", { batch: b.id.toString(), builder: b.builder, failedForGood: failed, err: (err as Error).message });
    return failed ? "failed" : "waiting";
  }
  if (await recordedBefore(deps.sql, signature)) {
    // a prebuilt transaction (no memo) can come out the same as an earlier one under the same blockhash: it is that one, never sent again
    deps.log.warn("the built transaction is one already recorded; built again under a newer blockhash", { batch: b.id.toString(), signature });
    await release(deps.sql, b, retry, "the built transaction is one already recorded; waiting for a newer blockhash");
    return "waiting";
  }
  await crashPoint(deps, "signed", b);
  if (!(await record(deps.sql, b, { signature, tx: raw, blockhash: blockhash.blockhash, lastValidBlockHeight: blockhash.lastValidBlockHeight, result }))) return "waiting";
  await crashPoint(deps, "recorded", b);
  return signature;
}

/**
 * A builder's prebuilt v0 transaction, with the executor's blockhash, signed by the payer:
 * its bytes. Refused unless the payer is its fee payer and only signer (nothing else may sign
 * for the batch, and the payer's key signs nothing it does not pay for).
 */
function signPrebuilt(tx: VersionedTransaction, key: Keypair, blockhash: string): Uint8Array {
  const m = tx.message;
  if (!m.staticAccountKeys[0]?.equals(key.publicKey)) throw new Error(`a prebuilt transaction whose fee payer is ${m.staticAccountKeys[0]?.toBase58()}, not the batch's payer`);
  if (m.header.numRequiredSignatures !== 1) throw new Error(`a prebuilt transaction wanting ${m.header.numRequiredSignatures} signatures; only the payer's may be given`);
  m.recentBlockhash = blockhash;
  tx.signatures = [new Uint8Array(64)];
  tx.sign([key]);
  return tx.serialize();
}

/** Runs turns until stopped: right away again while turns find work, else every intervalMs. */
export function startPaymentExecutor(deps: ExecutorDeps) {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  const loop = () => {
    timer = null;
    if (stopped) return;
    running = runTurn(deps).then(
      (r) => {
        if (r.settled.confirmed + r.settled.failed + r.settled.expired > 0) deps.log.info("payment batches settled", r.settled);
        return r.taken === (deps.options.batchesPerTurn ?? 8) ? 0 : deps.options.intervalMs;
      },
      (err) => (deps.log.error("payment executor turn failed", { err: err as Error }), deps.options.intervalMs),
    ).then((wait) => {
      running = null;
      if (!stopped) timer = setTimeout(loop, wait);
    });
  };
  timer = setTimeout(loop, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
