/**
 * `bun run backfill --since <slot|ISO time> [--config <address>]... [--pool <address>]... [--coins] [--restart]`
 *
 * Reads the platform's history over SOLANA_RPC_URL into the same stores the webhook
 * fills, through the same decode path and bus (Kafka when KAFKA_BROKERS is set, else
 * straight to a sink in this process). Resumable: progress is checkpointed per
 * address and range; run the same command again after an interruption. When it is done,
 * the holders of the coins whose balances it stored are reconciled over RPC. Exit codes:
 * 0 done, 1 failed (resume by re-running), 2 bad arguments or configuration, 130 interrupted.
 */
import { parseArgs } from "node:util";
import { createLogger } from "../../infra/log";
import { storedSignatures } from "../../compose/stored";
import { configOrExit, openEngines, platformConfigs } from "../../compose/boot";
import { buildStorage, treasuryOf } from "../../compose/storage";
import { kafkaBus, kafkaWithTopic } from "../../compose/kafka";
import type { Bus } from "../../pipelines/bus";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { createChainReader, parseSince, runBackfill, sinceKey, type BackfillStats } from ".";
import type { AddressKind } from "./checkpoint";
import { treasuryAddresses } from "../contract/configs";
import { emptyStats } from "./walk";
import { movedMints } from "../contract/envelope";
import { reconcileHolders } from "../../pipelines/holders/reconcile";

const USAGE = `usage: bun run backfill --since <slot|ISO time> [--config <address>]... [--pool <address>]... [--coins] [--restart]
  --since    lower bound: a slot number (330000000) or an ISO time (2026-01-31T00:00:00Z)
  --config   walk only this platform config (and the DAMM v2 pools its coins graduated to); repeatable
             (the treasury, TREASURY_ADDRESS and the configs' fee claimers, is walked with the configs)
  --pool     walk this platform pool (from platform_pools); repeatable; alone, nothing else is walked
  --coins    also walk each coin's DBC pool (creator fee claims) and mint (burns)
  --restart  walk finished ranges again from the newest signature`;

function usageError(message: string): never {
  console.error(`backfill: ${message}\n${USAGE}`);
  process.exit(2);
}

let args: { since?: string; config?: string[]; pool?: string[]; coins?: boolean; restart?: boolean; help?: boolean };
try {
  args = parseArgs({
    options: {
      since: { type: "string" },
      config: { type: "string", multiple: true },
      pool: { type: "string", multiple: true },
      coins: { type: "boolean" },
      restart: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  }).values;
} catch (err) {
  usageError((err as Error).message);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!args.since) usageError("--since is required");
const since = parseSince(args.since);
if ("error" in since) usageError(since.error);
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
for (const a of [...(args.config ?? []), ...(args.pool ?? [])]) if (!BASE58.test(a)) usageError(`${JSON.stringify(a)} is not a base58 address`);

const config = configOrExit();
if (!config.rpcUrl) {
  console.error("backfill: SOLANA_RPC_URL is not set; the backfill reads the chain over RPC");
  process.exit(2);
}
if (config.simulator.enabled) {
  console.error("backfill: SIMULATOR=on replaces the chain with the simulator; the backfill needs SIMULATOR=off or auto");
  process.exit(2);
}
const log = createLogger(config.logLevel, { process: "backfill" });
const { pg, ch } = await openEngines(config, log);
const closers: (() => Promise<unknown>)[] = [() => ch.close(), () => pg.stop()];
async function exit(code: number): Promise<never> {
  for (const close of closers.splice(0).reverse()) await close().catch((err) => log.warn("closing failed", { err: (err as Error).message }));
  process.exit(code);
}
async function badInput(message: string): Promise<never> {
  console.error(`backfill: ${message}`);
  return exit(2);
}

const { configs } = await platformConfigs(config, log, createSolanaRpc(config.rpcUrl));
const platform = configs.all.map((c) => c.address);
for (const c of args.config ?? [])
  if (!configs.byAddress.has(c)) await badInput(`--config ${c} is not a platform config (PLATFORM_CONFIGS: ${platform.join(", ") || "none"})`);
const pools: { address: string; kind: AddressKind }[] = [];
for (const p of args.pool ?? []) {
  const [row] = await pg.sql<{ venue: "dbc" | "damm_v2" }[]>`SELECT venue FROM platform_pools WHERE address = ${p}`;
  if (!row) await badInput(`--pool ${p} is not in platform_pools (a pool becomes known when its creation or migration is stored; backfill its config first)`);
  pools.push({ address: p, kind: row!.venue });
}
// --pool alone walks only those pools; otherwise the chosen (default: all) configs, their pools and the treasury
const chosenConfigs = args.config?.length ? args.config : pools.length ? [] : platform;
const treasury = chosenConfigs.length ? treasuryAddresses(configs, config.treasuryAddress) : [];
if (chosenConfigs.length === 0 && pools.length === 0) await badInput("PLATFORM_CONFIGS is empty: there is nothing to backfill");

// The bus: Kafka as the other entry points use it, or the in-process sink the all-in-one process builds (compose/storage.ts).
// Without Kafka this process stores, and counts the holders of what it stores (flushed at exit).
const storage = config.kafka ? null : await buildStorage({ ch, sql: pg.sql }, configs, log, { parkedMaxAgeMs: config.parkedFactsMaxAgeHours * 3_600_000, treasury: treasuryOf(config) });
const sent: Bus = storage ? storage.bus : await kafkaBus(await kafkaWithTopic(config.kafka!, "backfill"), config.kafka!);
closers.push(() => sent.close());
if (storage) closers.push(() => storage.holders.flush().then(() => storage.holders.stop()));
// the coins whose balances the stored transactions moved: their holders are reconciled over RPC at the end
const healed = new Set<string>();
const bus: Bus = {
  publish: (batch) => {
    for (const m of movedMints(batch)) healed.add(m);
    return sent.publish(batch);
  },
  close: () => sent.close(),
};

let retries = 0;
const reader = createChainReader(config.rpcUrl, {
  onRetry: (r) => {
    retries++;
    log.debug("rpc retry", r);
  },
});

// Ctrl-C: finish and checkpoint the page in progress, then stop; a second one stops at once.
const stop = new AbortController();
process.removeAllListeners("SIGINT");
process.removeAllListeners("SIGTERM");
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    if (stop.signal.aborted) process.exit(130);
    console.error(`\nbackfill: ${signal}: stopping after the page in progress (again to quit now)`);
    stop.abort();
  });

const stats = emptyStats();
const started = performance.now();
const line = (s: BackfillStats) => {
  const seconds = (performance.now() - started) / 1000;
  return (
    `addresses ${s.addressesDone}/${s.addressesTotal}${s.addressesSkipped ? ` (${s.addressesSkipped} already done)` : ""} · ` +
    `signatures ${s.signatures} · stored ${s.published} · already stored ${s.alreadyStored} · failed on chain ${s.failed} · ` +
    `${Math.round(s.published / Math.max(seconds, 0.001))} tx/s${retries ? ` · retries ${retries}` : ""}`
  );
};
const tty = process.stderr.isTTY === true;
let ticks = 0;
const progress = setInterval(() => {
  if (tty) process.stderr.write(`\r\x1b[2K${line(stats)}`);
  else if (++ticks % 10 === 0) process.stderr.write(`${line(stats)}\n`); // logs: one line every 10 s
}, 1000);

try {
  const result = await runBackfill(
    { reader, bus, stored: storedSignatures({ ch, sql: pg.sql }), ch, sql: pg.sql },
    { since, configs: chosenConfigs, treasury, pools, coins: args.coins ?? false, restart: args.restart ?? false, signal: stop.signal, stats },
  );
  clearInterval(progress);
  if (tty) process.stderr.write("\r\x1b[2K");
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  console.log(`backfill ${result.stopped ? "stopped" : "done"} (since ${sinceKey(since)}) in ${seconds} s: ${line(stats)}`);
  if (config.kafka && !result.stopped)
    console.log("with Kafka, pools that graduated in this range are walked once the pipelines stored them: run the same command again later (finished addresses are skipped)");
  if (result.stopped) console.log("run the same command again to resume from the checkpoints");
  else if (healed.size) {
    const holders = await reconcileHolders({ ch, sql: pg.sql, rpc: createSolanaRpc(config.rpcUrl!), log }, [...healed]);
    if (holders.skipped) console.log("holders: another process is reconciling them; the next scheduled reconciliation covers these coins");
    else console.log(`holders reconciled over RPC for ${holders.coins} coins${holders.failed ? ` (${holders.failed} failed: see the log)` : ""} in ${holders.ms} ms`);
  }
  await exit(result.stopped ? 130 : 0);
} catch (err) {
  clearInterval(progress);
  if (tty) process.stderr.write("\n");
  console.error(`backfill failed: ${(err as Error).message}\n${line(stats)}\nrun the same command again to resume from the checkpoints`);
  log.error("backfill failed", { err: err as Error });
  await exit(1);
}
