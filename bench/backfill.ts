/**
 * Backfill throughput: a simulated chain served by the loopback RPC test double,
 * backfilled into fresh embedded engines through the in-process bus and sink.
 * Run: `bun bench/backfill.ts [--txs 20000] [--pools 200] [--tx-concurrency 8] [--coins]`.
 * The double runs in this process too, so it shares the CPU with the backfill;
 * a real RPC adds network latency, which the getTransaction concurrency hides.
 */
import { parseArgs } from "node:util";
import { freshEngines } from "../infra/testing/engines";
import { startRpcTestDouble } from "../infra/testing/rpc-double";
import { createChainReader, runBackfill } from "../ingest/backfill";
import { inProcessStore, simulatedChain, storedCounts } from "../compose/testing/test-chain";

const { values: args } = parseArgs({
  options: {
    txs: { type: "string", default: "20000" },
    pools: { type: "string", default: "200" },
    "tx-concurrency": { type: "string", default: "8" },
    coins: { type: "boolean", default: false },
  },
});
const say = (msg: string) => console.error(`[bench:backfill] ${msg}`);

const engines = await freshEngines("acp-bench-backfill", 20);
const { ch, sql } = engines;

try {
  say(`simulating ${args.txs} transactions on ${args.pools} pools`);
  const chain = simulatedChain(9, Number(args.txs), { pools: Number(args.pools) });
  const rpc = startRpcTestDouble(new Map(), { transactions: chain.ledger });
  const store = await inProcessStore({ ch, sql }, chain);
  const deps = { reader: createChainReader(rpc.url), bus: store.bus, stored: store.stored, ch, sql };
  const options = { since: { kind: "slot" as const, slot: 0 }, configs: chain.configAddresses, coins: args.coins, txConcurrency: Number(args["tx-concurrency"]) };

  say("backfilling into empty engines");
  const t0 = performance.now();
  const first = await runBackfill(deps, options);
  const seconds = (performance.now() - t0) / 1000;
  const counts = await storedCounts(ch, chain.mints, chain.signatures);

  say("again with --restart: every signature listed, every transaction already stored");
  const t1 = performance.now();
  const again = await runBackfill(deps, { ...options, restart: true });
  const againSeconds = (performance.now() - t1) / 1000;
  rpc.stop();

  const result = {
    transactions: first.stats.published,
    trades: counts.trades,
    expectedTrades: chain.expected.trades,
    addresses: first.stats.addressesTotal,
    seconds: Math.round(seconds * 100) / 100,
    transactionsPerSecond: Math.round(first.stats.published / seconds),
    tradesPerSecond: Math.round(counts.trades! / seconds),
    sinkWrites: store.metrics.batches,
    sinkWriteSeconds: Math.round(store.metrics.writeMs / 10) / 100,
    restartSeconds: Math.round(againSeconds * 100) / 100,
    restartSignaturesPerSecond: Math.round(again.stats.signatures / againSeconds),
    txConcurrency: options.txConcurrency,
    cores: navigator.hardwareConcurrency,
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await ch.close();
  await engines.stop();
}
