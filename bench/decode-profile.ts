/**
 * CPU time per transaction of webhook decoding, stage by stage, on simulated traffic:
 *
 *   normalize  Helius webhook element -> ChainTransaction (base58 instruction data)
 *   decode     ChainTransaction -> facts (IDL event decoding)
 *   envelope   facts -> TxEnvelope
 *   clone      structuredClone of each batch of 100 envelopes: what postMessage does
 *              (serialize in the worker, deserialize on the main thread) with a webhook's
 *              envelopes
 *
 * Each round runs every stage over all transactions, one stage at a time; the table gives
 * the median and the best round in µs per transaction. The machine is usually shared:
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

const { values } = parseArgs({ options: { txs: { type: "string", default: "20000" }, rounds: { type: "string", default: "9" } } });
const TXS = Number(values.txs);
const ROUNDS = Number(values.rounds);
const BATCH = 100;

// webhook elements as the worker sees them: fresh from JSON.parse
const sim = createSimulator({
  seed: 7,
  configs: fixtureSimConfigs(7),
  startTime: Math.floor(Date.now() / 1000) - TXS,
  secondsPerTx: 1,
  pools: 200,
});
const elements: unknown[] = [];
for (let i = 0; i < TXS; i += BATCH) elements.push(...JSON.parse(JSON.stringify(sim.next(Math.min(BATCH, TXS - i)))));

type Stage = "normalize" | "decode" | "envelope" | "clone";
const STAGES: Stage[] = ["normalize", "decode", "envelope", "clone"];
const samples: Record<Stage, number[]> = { normalize: [], decode: [], envelope: [], clone: [] };

/** Runs `f` and records its wall time in µs per transaction. */
function timed<T>(stage: Stage, f: () => T): T {
  const start = performance.now();
  const result = f();
  samples[stage].push(((performance.now() - start) * 1000) / TXS);
  return result;
}

for (let round = 0; round < ROUNDS; round++) {
  const txs = timed("normalize", () =>
    elements.map((e) => {
      const r = normalizeWebhookTransaction(e);
      if (!r.ok) throw new Error(r.reason);
      return r.tx;
    }),
  );
  const decoded = timed("decode", () => txs.map((tx: ChainTransaction) => decodeTransaction(tx)));
  const envelopes = timed("envelope", () =>
    decoded.map((d: DecodedTransaction, i) => envelopeFromDecoded("helius", 0, d, () => JSON.stringify(elements[i]))),
  );
  const batches: TxEnvelope[][] = [];
  for (let i = 0; i < envelopes.length; i += BATCH) batches.push(envelopes.slice(i, i + BATCH));
  timed("clone", () => batches.map((b) => structuredClone(b)));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number) => x.toFixed(1).padStart(6);
console.log(`${TXS} transactions, ${ROUNDS} rounds; µs per transaction`);
console.log(`${"".padEnd(10)} median   best`);
for (const s of STAGES) console.log(`${s.padEnd(10)} ${fmt(median(samples[s]))} ${fmt(Math.min(...samples[s]))}`);
const total = (pick: (xs: number[]) => number) => STAGES.reduce((sum, s) => sum + pick(samples[s]), 0);
console.log(`${"total".padEnd(10)} ${fmt(total(median))} ${fmt(total((xs) => Math.min(...xs)))}`);
