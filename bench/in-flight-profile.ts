/**
 * What an in-flight mark costs Postgres: 120,000 signatures marked 100 at a time
 * (30 webhook calls side by side) and cleared 3,000 at a time, as the sink does,
 * keyed by the signature text (the old `sink_inflight`) and by the 64-bit mark key
 * (`sink_in_flight`, pipelines/in-flight.ts). Reports Postgres CPU per signature.
 * Run: `bun run bench/in-flight-profile.ts`.
 */
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { freshEngines } from "../infra/testing/engines";
import { markKey } from "../pipelines/in-flight";
import { processCpu } from "./thread-cpu";

const SIGNATURES = 120_000;
const engines = await freshEngines("acp-in-flight", 40);
const sql = engines.sql;
await sql`CREATE TABLE marks_by_text (key text PRIMARY KEY, since timestamptz NOT NULL DEFAULT now())`;
await sql`CREATE TABLE marks_by_number (key bigint PRIMARY KEY, since timestamptz NOT NULL DEFAULT now())`;
const signatures = Array.from({ length: SIGNATURES }, () => bs58.encode(randomBytes(64)));
const variants = [
  { name: "signature text", table: "marks_by_text", type: "text", keys: signatures },
  { name: "64-bit mark key", table: "marks_by_number", type: "bigint", keys: signatures.map(markKey) },
];
for (const round of [1, 2])
  for (const v of variants) {
    const pg0 = processCpu("postgres");
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let w = 0; w < v.keys.length; w += 3000) {
      const write = v.keys.slice(w, w + 3000);
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          sql.unsafe(`INSERT INTO ${v.table} (key) SELECT unnest($1::${v.type}[]) ON CONFLICT DO NOTHING RETURNING key`, [write.slice(i * 100, i * 100 + 100)] as never),
        ),
      );
      await sql.unsafe(`DELETE FROM ${v.table} WHERE key = ANY($1::${v.type}[])`, [write] as never);
    }
    const cpu = process.cpuUsage(cpu0);
    const perSignature = (ms: number) => ((ms * 1000) / SIGNATURES).toFixed(1);
    console.log(
      `round ${round}, ${v.name.padEnd(16)}: Postgres ${perSignature(processCpu("postgres") - pg0)} µs/signature, client ${perSignature((cpu.user + cpu.system) / 1000)} µs/signature, ${((performance.now() - t0) / 1000).toFixed(2)} s`,
    );
  }
await engines.stop();
process.exit(0);
