/**
 * CPU per transaction of the Kafka message codec alone, on the scaled ingest's envelopes (its
 * stateless fact scope): encodeEnvelope (the object form with `$bigint`s, published before
 * 2026-11-27) and encodeMessage (what the bus publishes) with decodeEnvelope; kafkajs's own
 * record batch encode and decode of the published values (what a produce and a fetch cost in
 * this process); gzip of them (kafkajs's one built-in compression codec).
 * Run: `bun run bench/kafka-codec-profile.ts --txs 20000`.
 */
import { parseArgs } from "node:util";
import { createSimulator, fixtureSimConfigs, simulatedPlatform } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { toEnvelopes } from "../ingest/helius/handle";
import { statelessScope } from "../compose/processes/ingest";
import { decodeEnvelope, encodeEnvelope, encodeMessage, partitionKey } from "../pipelines/kafka/topics";
// kafkajs's record batch codec (what the producer and the fetch use)
// @ts-expect-error no types for kafkajs internals
import { RecordBatch as RecordBatchEncoder } from "kafkajs/src/protocol/recordBatch/v0";
// @ts-expect-error no types for kafkajs internals
import RecordBatchDecoder from "kafkajs/src/protocol/recordBatch/v0/decoder";
// @ts-expect-error no types for kafkajs internals
import Decoder from "kafkajs/src/protocol/decoder";
// @ts-expect-error no types for kafkajs internals
import Record from "kafkajs/src/protocol/recordBatch/record/v0";

const { values: args } = parseArgs({ options: { txs: { type: "string", default: "20000" }, rounds: { type: "string", default: "5" } } });
const TXS = Number(args.txs);
const simConfigs = fixtureSimConfigs(7);
const configs = simulatedConfigRegistry(simConfigs);
const simulated = simulatedPlatform(7, simConfigs);
const scope = statelessScope(configs, { treasuryAddress: simulated.treasury, platformTokenMint: simulated.platformTokenMint });
const sim = createSimulator({ seed: 9, configs: simConfigs, startTime: Math.floor(Date.now() / 1000) - 86400, secondsPerTx: 0.2, pools: 300 });
const envelopes = toEnvelopes(JSON.parse(JSON.stringify(sim.next(TXS))), "simulator", Date.now(), { scope });

async function cpuUs(fn: () => unknown): Promise<number> {
  let best = Infinity;
  for (let r = 0; r < Number(args.rounds); r++) {
    const t = process.cpuUsage();
    await fn();
    const d = process.cpuUsage(t);
    best = Math.min(best, (d.user + d.system) / TXS);
  }
  return Math.round(best * 100) / 100;
}

// the object form (what the bus published before encodeMessage) and the published form
let objects: Buffer[] = [];
const objectEncodeUs = await cpuUs(() => (objects = envelopes.map((e) => Buffer.from(encodeEnvelope(e)))));
const objectDecodeUs = await cpuUs(() => objects.forEach((v) => decodeEnvelope(v)));
let values: Buffer[] = [];
const encodeUs = await cpuUs(() => (values = envelopes.map((e) => Buffer.from(encodeMessage(e)))));
const decodeUs = await cpuUs(() => values.forEach((v) => decodeEnvelope(v)));
const size = (vs: Buffer[]) => Math.round(vs.reduce((n, v) => n + v.length, 0) / TXS);

// record batches of 2,000 messages, as a produce sends them and a fetch returns them
const records = envelopes.map((e, i) => Record({ offsetDelta: i % 2000, timestampDelta: 0, key: Buffer.from(partitionKey(e)), value: values[i], headers: {} }));
let batches: Buffer[] = [];
const kafkaEncodeUs = await cpuUs(async () => {
  batches = [];
  for (let i = 0; i < records.length; i += 2000) batches.push((await RecordBatchEncoder({ firstOffset: 0, firstTimestamp: Date.now(), maxTimestamp: Date.now(), lastOffsetDelta: Math.min(2000, records.length - i) - 1, records: records.slice(i, i + 2000) })).buffer);
});
const kafkaDecodeUs = await cpuUs(async () => {
  // what a fetch does per record batch (kafkajs/src/protocol/recordBatch/v0/decoder)
  for (const b of batches) await RecordBatchDecoder(new Decoder(b));
});
// gzip (kafkajs's one built-in codec) of each 2,000-record run, as a compressed produce would
const { gzipSync, gunzipSync } = await import("node:zlib");
const runs = batches.map((_, i) => Buffer.concat(values.slice(i * 2000, (i + 1) * 2000)));
let zipped: Buffer[] = [];
const gzipUs = await cpuUs(() => (zipped = runs.map((r) => gzipSync(r))));
const gunzipUs = await cpuUs(() => zipped.forEach((z) => gunzipSync(z)));
const gzipIn = runs.reduce((n, r) => n + r.length, 0);
const gzipOut = zipped.reduce((n, z) => n + z.length, 0);
console.log(
  JSON.stringify({
    transactions: TXS,
    objectForm: { bytesPerMessage: size(objects), encodeUs: objectEncodeUs, decodeUs: objectDecodeUs },
    published: { bytesPerMessage: size(values), encodeUs, decodeUs },
    gzip: { ratio: Math.round((gzipIn / gzipOut) * 100) / 100, compressUs: gzipUs, decompressUs: gunzipUs },
    kafkaRecordEncodeUs: kafkaEncodeUs,
    kafkaRecordDecodeUs: kafkaDecodeUs,
  }),
);
