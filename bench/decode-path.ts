/**
 * The webhook decode path as the decode pool runs it, per transaction, split by thread:
 *
 *   worker  a worker's answer to one call of 100 transactions (parse, normalize,
 *           decode with the platform's fact scope, envelopes, tuples) and its serialization,
 *           what postMessage does in the worker
 *   main    reading that answer on the main thread (deserialization, envelopes rebuilt)
 *
 * CPU time of this process, min and median over the rounds. `--root DIR` measures another
 * checkout's code (e.g. an exported copy of main) on the same traffic: alternate the two.
 *
 *   bun run bench/decode-path.ts [--txs 10000] [--rounds 15] [--root DIR]
 */
import { parseArgs } from "node:util";
import { serialize, deserialize } from "bun:jsc";
import { createSimulator, fixtureSimConfigs, simulatedPlatform } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { PoolRegistry } from "../pipelines/platform/registry";

const { values } = parseArgs({ options: { txs: { type: "string", default: "10000" }, rounds: { type: "string", default: "15" }, root: { type: "string" } } });
const TXS = Number(values.txs);
const ROUNDS = Number(values.rounds);
const root = values.root ?? new URL("..", import.meta.url).pathname;
const pool = await import(`${root}/ingest/helius/decode-pool.ts`);
// a checkout from before the tuples answers with envelope objects
const tuples: { fromTuples(m: unknown): unknown } | null = await import(`${root}/ingest/helius/envelope-tuples.ts`).catch(() => null);

const simConfigs = fixtureSimConfigs(7);
const sim = createSimulator({ seed: 7, configs: simConfigs, startTime: Math.floor(Date.now() / 1000) - TXS, secondsPerTx: 1, pools: 200 });
const bodies: string[] = [];
for (let i = 0; i < TXS; i += 100) bodies.push(JSON.stringify(sim.next(Math.min(100, TXS - i))));
const platform = simulatedPlatform(7, simConfigs);
const registry = new PoolRegistry(simulatedConfigRegistry(simConfigs), { treasuryAddress: platform.treasury, platformTokenMint: platform.platformTokenMint });
for (const p of sim.state().pools) registry.remember({ address: p.pool, mint: p.mint, venue: "dbc", config: p.config });

const handle = pool.decodeWorker();
handle({ scope: registry.factScope() });
const worker: number[] = [];
const main: number[] = [];
const cpu = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / TXS;
};
for (let round = 0; round < ROUNDS; round++) {
  const requests = bodies.map((b, id) => ({ id, text: b, source: "helius", receivedAt: 0 }));
  let start = process.cpuUsage();
  const sent = requests.map((r) => serialize(handle(r)));
  worker.push(cpu(start));
  start = process.cpuUsage();
  for (const s of sent) {
    const answer = deserialize(s) as { result: { ok: boolean; tuples?: unknown } };
    if (tuples && answer.result.ok) tuples.fromTuples(answer.result.tuples);
  }
  main.push(cpu(start));
}
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `min ${s[0]!.toFixed(1)}, median ${s[Math.floor(s.length / 2)]!.toFixed(1)}`;
};
console.log(`${root}: ${TXS} transactions, ${ROUNDS} rounds; µs per transaction: worker ${stat(worker)}; main thread ${stat(main)}`);
