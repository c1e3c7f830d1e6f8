/**
 * Where webhook ingest spends its time: posts simulated webhook bodies like the
 * benchmark does, and reports the time in decoding (worker), each ClickHouse
 * insert and query, and the sink's steps (lookup, classify, agents, price, write).
 * Run: `bun run bench/ingest-profile.ts --txs 40000 --concurrency 64`.
 */
import { parseArgs } from "node:util";
import { freshEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { loadConfig } from "../infra/config";
import { wirePlatform } from "../compose/wiring";
import { createSolPriceService } from "../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { createSimulator, fixtureSimConfigs, simulatedPlatform } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { round } from "./measure";
import { processCpu, machineCpu, threadCpu, threadCpuSince } from "./thread-cpu";

const { values: args } = parseArgs({ options: { txs: { type: "string", default: "20000" }, concurrency: { type: "string", default: "32" }, batch: { type: "string", default: "100" } } });
const TXS = Number(args.txs);
const BATCH = Number(args.batch);
const SECRET = "bench-webhook-secret-0123456789";

const engines = await freshEngines("acp-profile", 20);
const spent = new Map<string, { ms: number; calls: number; rows: number }>();
const timed = <T>(label: string, rows: number, p: Promise<T>) => {
  const t = performance.now();
  return p.finally(() => {
    const s = spent.get(label) ?? { ms: 0, calls: 0, rows: 0 };
    s.ms += performance.now() - t;
    s.calls++;
    s.rows += rows;
    spent.set(label, s);
  });
};
const ch = engines.ch;
const insert = ch.insert.bind(ch);
const query = ch.query.bind(ch);
const command = ch.command.bind(ch);
let inserts = 0;
ch.insert = (table, rows) => {
  if (rows.length) inserts++;
  return timed(`ch insert ${table}`, rows.length, insert(table, rows));
};
ch.command = ((sql: string, params?: never) => timed(`ch command ${sql.trim().slice(0, 40).replace(/\s+/g, " ")}`, 0, command(sql, params))) as typeof ch.command;
ch.query = ((sql: string, params?: never) => timed(`ch query ${sql.slice(0, 40).replace(/\s+/g, " ")}`, 0, query(sql, params))) as typeof ch.query;

const simConfigs = fixtureSimConfigs(7);
const log = createLogger("warn");
// the simulated treasury and platform token, as `npm start` names them: their flows and balances are decoded and stored
const simulated = simulatedPlatform(7, simConfigs);
const platform = await wirePlatform({
  config: loadConfig({ SIMULATOR: "off", TREASURY_ADDRESS: simulated.treasury, PLATFORM_TOKEN_MINT: simulated.platformTokenMint }),
  log,
  engines: { ch, sql: engines.sql },
  configs: simulatedConfigRegistry(simConfigs),
  webhookSecret: SECRET,
  price: createSolPriceService([fixedPriceSourceTestDouble(150)], log),
  responseCache: false,
});
const decode = platform.decoder.decode.bind(platform.decoder);
// facts per kind as decoded (what crosses from the worker to the main thread)
const factKinds = new Map<string, number>();
platform.decoder.decode = (text, source, at) =>
  timed(
    "decode (worker, wall)",
    0,
    decode(text, source, at).then((body) => {
      if (body.ok) for (const e of body.envelopes) for (const f of e.facts) factKinds.set(f.kind, (factKinds.get(f.kind) ?? 0) + 1);
      return body;
    }),
  );
const server = platform.app.listen({ port: 0, hostname: "127.0.0.1" });

const sim = createSimulator({ seed: 7, configs: simConfigs, startTime: Math.floor(Date.now() / 1000) - TXS, secondsPerTx: 1, pools: 200 });
const bodies: string[] = [];
for (let i = 0; i < TXS; i += BATCH) bodies.push(JSON.stringify(sim.next(Math.min(BATCH, TXS - i))));
const url = `http://127.0.0.1:${server.server!.port}/v1/ingest/helius`;
let next = 0;
const cpu0 = process.cpuUsage();
const threads0 = threadCpu();
const machine0 = machineCpu();
const postgres0 = processCpu("postgres");
const t0 = performance.now();
await Promise.all(
  Array.from({ length: Number(args.concurrency) }, async () => {
    while (next < bodies.length) {
      const res = await fetch(url, { method: "POST", headers: { authorization: SECRET }, body: bodies[next++]! });
      if (!res.ok) throw new Error(`webhook answered ${res.status}`);
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const threads = threadCpuSince(threads0);
const machine = machineCpu();
const postgresMs = processCpu("postgres") - postgres0;
console.log(`CPU ${round((cpu.user + cpu.system) / 1e6)} s over ${round(seconds)} s wall (${round((cpu.user + cpu.system) / 1e4 / seconds)}% of one core)`);
const trades = Number((await query<{ n: string }>("SELECT count() AS n FROM trades"))[0]!.n);
console.log(`${TXS} transactions, ${trades} trades in ${round(seconds)} s: ${Math.round(trades / seconds)} trades/s; ${platform.metrics.batches} sink writes, ${round(platform.metrics.writeMs / 1000)} s writing`);
console.log(`machine: ${round((100 * (machine.busy - machine0.busy)) / (machine.total - machine0.total))}% busy of ${navigator.hardwareConcurrency} cores; Postgres ${Math.round((postgresMs * 1000) / TXS)} µs per transaction`);
console.log(`CPU per transaction: ${Math.round((cpu.user + cpu.system) / TXS)} µs in this process (every thread) + ${Math.round((postgresMs * 1000) / TXS)} µs in Postgres`);
console.log(`inserts per sink write: ${round(inserts / platform.metrics.batches)} (${inserts} non-empty inserts)`);
console.log(`facts decoded per transaction: ${[...factKinds].map(([k, n]) => `${k} ${round(n / TXS, 3)}`).join(", ")}`);
console.log(`CPU per thread name (µs per transaction): ${threads.map(([n, ms]) => `${n} ${Math.round((ms * 1000) / TXS)}`).join(", ")}`);
for (const [step, ms] of Object.entries(platform.metrics.stepMs)) console.log(`sink step ${step.padEnd(50)} ${String(round(ms / 1000)).padStart(7)} s`);
for (const [label, s] of [...spent].sort((a, b) => b[1].ms - a[1].ms))
  console.log(`${label.padEnd(60)} ${String(round(s.ms / 1000)).padStart(7)} s  ${String(s.calls).padStart(6)} calls  ${s.rows} rows`);
server.stop(true);
await platform.decoder.close();
await engines.stop();
process.exit(0);
