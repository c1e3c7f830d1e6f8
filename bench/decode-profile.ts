/**
 * CPU time per transaction of webhook decoding, stage by stage, on simulated traffic:
 *
 *   parse      JSON.parse of the webhook bodies (calls of 100 transactions)
 *   normalize  Helius webhook element -> ChainTransaction (instruction data checked as base58)
 *   decode     ChainTransaction -> facts (IDL event decoding, the base58 of the data decoders
 *              read), every balance fact
 *   scoped     the same with the platform's fact scope (ingest/contract/fact-scope.ts: only
 *              the balance facts the pipelines can use), as the webhook's workers decode
 *   envelope   facts -> TxEnvelope (scoped)
 *   clone      structuredClone of each batch of 100 envelopes as objects: what postMessage
 *              did (serialize in the worker, deserialize on the main thread) with a webhook's
 *              envelopes, every balance fact
 *   clone-sc   what the decode pool does now with the scoped envelopes: as tuples
 *              (ingest/helius/envelope-tuples.ts: packed, cloned, rebuilt)
 *
 * Each round runs every stage over all transactions, one stage at a time; the table gives
 * the median and the best round in µs per transaction, and the worker's sum with the scope. The machine is usually shared:
 * compare medians of several runs.
 *
 *   bun run bench/decode-profile.ts [--txs 20000] [--rounds 9]
 */
import { parseArgs } from "node:util";
import { createSimulator, fixtureSimConfigs } from "../ingest/simulator";
import { normalizeWebhookTransaction } from "../ingest/normalize";
import { decodeTransaction } from "../ingest/decoders";
import type { DecodedTransaction } from "../ingest/contract/facts";
import type { ChainTransaction } from "../ingest/transaction";
import { envelopeFromDecoded, type TxEnvelope } from "../ingest/contract/envelope";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { simulatedPlatform } from "../ingest/simulator";
import { treasuryAddresses } from "../ingest/contract/configs";
import { PoolRegistry } from "../pipelines/platform/registry";
import { fromTuples, toTuples } from "../ingest/helius/envelope-tuples";

const { values } = parseArgs({ options: { txs: { type: "string", default: "20000" }, rounds: { type: "string", default: "9" } } });
const TXS = Number(values.txs);
const ROUNDS = Number(values.rounds);
const BATCH = 100;

// webhook elements as the worker sees them: fresh from JSON.parse
const simConfigs = fixtureSimConfigs(7);
const sim = createSimulator({
  seed: 7,
  configs: simConfigs,
  startTime: Math.floor(Date.now() / 1000) - TXS,
  secondsPerTx: 1,
  pools: 200,
});
const bodies: string[] = [];
for (let i = 0; i < TXS; i += BATCH) bodies.push(JSON.stringify(sim.next(Math.min(BATCH, TXS - i))));
const elements: unknown[] = bodies.flatMap((b) => JSON.parse(b));

// the scope the all-in-one gives its workers: the simulated treasury and platform token, every coin known
const platform = simulatedPlatform(7, simConfigs);
const registry = new PoolRegistry(simulatedConfigRegistry(simConfigs), { treasuryAddress: platform.treasury, platformTokenMint: platform.platformTokenMint });
for (const p of sim.state().pools) registry.remember({ address: p.pool, mint: p.mint, venue: "dbc", config: p.config });
const scope = registry.factScope();
if (treasuryAddresses(registry.configs, platform.treasury).length !== scope.treasury.size) throw new Error("treasury mismatch");

type Stage = "parse" | "normalize" | "decode" | "scoped" | "envelope" | "clone" | "clone-sc";
const STAGES: Stage[] = ["parse", "normalize", "decode", "scoped", "envelope", "clone", "clone-sc"];
/** what the webhook's worker does per transaction, with the scope */
const WORKER: Stage[] = ["parse", "normalize", "scoped", "envelope", "clone-sc"];
const samples: Record<Stage, number[]> = { parse: [], normalize: [], decode: [], scoped: [], envelope: [], clone: [], "clone-sc": [] };

/**
 * Runs `f` and records the process's CPU time in µs per transaction (not wall time: on a
 * machine shared with other work, wall time counts the neighbours; this process's other
 * threads, the JIT and the garbage collector's helpers, are counted).
 */
function timed<T>(stage: Stage, f: () => T): T {
  const start = process.cpuUsage();
  const result = f();
  const used = process.cpuUsage(start);
  samples[stage].push((used.user + used.system) / TXS);
  return result;
}

for (let round = 0; round < ROUNDS; round++) {
  timed("parse", () => bodies.map((b) => JSON.parse(b)));
  const txs = timed("normalize", () =>
    elements.map((e) => {
      const r = normalizeWebhookTransaction(e);
      if (!r.ok) throw new Error(r.reason);
      return r.tx;
    }),
  );
  // instruction data is decoded from base58 when a decoder first reads it (ingest/base58-instruction.ts):
  // each decoding stage gets transactions of its own, so neither finds the other's work done
  const again = txsOnce();
  const every = timed("decode", () => again.map((tx: ChainTransaction) => decodeTransaction(tx)));
  const decoded = timed("scoped", () => txs.map((tx: ChainTransaction) => decodeTransaction(tx, scope)));
  const toEnvelope = (d: DecodedTransaction, i: number) => envelopeFromDecoded("helius", 0, d, () => JSON.stringify(elements[i]));
  const envelopes = timed("envelope", () => decoded.map(toEnvelope));
  const inBatches = (list: TxEnvelope[]) => Array.from({ length: Math.ceil(list.length / BATCH) }, (_, i) => list.slice(i * BATCH, (i + 1) * BATCH));
  const everyBatches = inBatches(every.map(toEnvelope));
  timed("clone", () => everyBatches.map((b) => structuredClone(b)));
  const batches = inBatches(envelopes);
  timed("clone-sc", () => batches.map((b) => fromTuples(structuredClone(toTuples(b)))));
}
const facts = (list: DecodedTransaction[]) => list.reduce((n, d) => n + d.facts.length, 0) / TXS;
console.log(`facts per transaction: ${facts(txsOnce().map((tx) => decodeTransaction(tx))).toFixed(2)} every, ${facts(txsOnce().map((tx) => decodeTransaction(tx, scope))).toFixed(2)} scoped`);
function txsOnce(): ChainTransaction[] {
  return elements.map((e) => {
    const r = normalizeWebhookTransaction(e);
    if (!r.ok) throw new Error(r.reason);
    return r.tx;
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number) => x.toFixed(1).padStart(6);
console.log(`${TXS} transactions, ${ROUNDS} rounds; µs per transaction`);
console.log(`${"".padEnd(10)} median   best`);
for (const s of STAGES) console.log(`${s.padEnd(10)} ${fmt(median(samples[s]))} ${fmt(Math.min(...samples[s]))}`);
const total = (pick: (xs: number[]) => number) => WORKER.reduce((sum, s) => sum + pick(samples[s]), 0);
console.log(`${"worker".padEnd(10)} ${fmt(total(median))} ${fmt(total((xs) => Math.min(...xs)))}  (${WORKER.join(" + ")})`);
