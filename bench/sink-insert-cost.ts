/**
 * What one sink write's inserts cost, table by table: simulated webhook traffic decoded as the
 * webhook's workers decode it (with the platform's fact scope) and planned into rows as the sink
 * plans them (pipelines/write-plan.ts), in groups of `--group` transactions (the size of an
 * average sink write at 64 concurrent webhook calls), then each table's rows of each group
 * inserted one insert at a time into fresh engines. Per table: the parts an insert makes (the
 * table and each materialized view reading it), its rows per write, and the process's CPU per
 * insert (chDB's threads included: the engine runs in this process) and wall time.
 *
 * `--without-views a,b`: drops those materialized views first, to see what each costs.
 *
 *   bun run bench/sink-insert-cost.ts [--txs 60000] [--group 2800] [--without-views fees_1h_mv,trades_by_slot_mv]
 */
import { parseArgs } from "node:util";
import { freshEngines } from "../infra/testing/engines";
import { createSimulator, fixtureSimConfigs, simulatedPlatform } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { toEnvelopes } from "../ingest/helius/handle";
import { PoolRegistry } from "../pipelines/platform/registry";
import { planBatch, planRows } from "../pipelines/write-plan";
import { FACT_TABLES, type FeeClaimRow, type TreasuryFlowRow } from "../pipelines/rows";
import { feeClaimsUsd, readLookups, treasuryTransfers } from "../pipelines/priced-rows";
import { round } from "./measure";

const { values: args } = parseArgs({
  options: { txs: { type: "string", default: "60000" }, group: { type: "string", default: "2800" }, "without-views": { type: "string", default: "" } },
});
const TXS = Number(args.txs);
const GROUP = Number(args.group);

const simConfigs = fixtureSimConfigs(7);
const simulated = simulatedPlatform(7, simConfigs);
const registry = new PoolRegistry(simulatedConfigRegistry(simConfigs), { treasuryAddress: simulated.treasury, platformTokenMint: simulated.platformTokenMint });
const scope = registry.factScope();
registry.onNewPool((p) => scope.coins!.add(p.mint));
const sim = createSimulator({ seed: 7, configs: simConfigs, startTime: Math.floor(Date.now() / 1000) - TXS, secondsPerTx: 1, pools: 200 });

type Writes = Record<string, Record<string, unknown>[]>;
const writes: Writes[] = [];
for (let i = 0; i < TXS; i += GROUP) {
  const envelopes = toEnvelopes(JSON.parse(JSON.stringify(sim.next(Math.min(GROUP, TXS - i)))), "helius", Date.now(), { scope });
  const batch = planBatch(envelopes, new Set(), new Set(), registry);
  for (const p of batch.newPools) registry.remember(p);
  const plan = planRows(batch, [], registry);
  const w: Writes = { transactions: plan.ledger as never };
  for (const t of FACT_TABLES) w[t] = plan.tables[t].clear as never;
  writes.push(w);
}

const engines = await freshEngines("acp-insert-cost", 4);
try {
  for (const view of args["without-views"]!.split(",").filter(Boolean)) await engines.ch.command(`DROP VIEW ${view}`);
  // a table's dependencies are the materialized views reading it: each insert makes a part in each view's table too
  const views = await engines.ch.query<{ source: string; n: string }>(
    "SELECT name AS source, toString(length(dependencies_table)) AS n FROM system.tables WHERE database = currentDatabase()",
  );
  const viewsOf = new Map(views.map((v) => [v.source, Number(v.n)]));
  const cost = new Map<string, { inserts: number; rows: number; cpuMs: number; wallMs: number }>();
  // table by table through the writes, one insert at a time: each insert's CPU is its own; the
  // treasury's priced rows as the sink makes them (pipelines/priced-rows.ts), their reads apart
  for (const w of writes) {
    const claims = w.fee_claims as FeeClaimRow[];
    const flows = w.treasury_flows as TreasuryFlowRow[];
    const priced: Writes = {};
    if (claims.length || flows.length) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const l = await readLookups(engines.ch, claims, flows);
      priced.fee_claims_usd = feeClaimsUsd(claims, l);
      priced.treasury_transfers = treasuryTransfers(flows, l);
      account("(price reads)", 0, cpu0, t0);
    }
    for (const [table, rows] of Object.entries({ ...w, ...priced })) {
      if (rows.length === 0) continue;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await engines.ch.insert(table, rows);
      account(table, rows.length, cpu0, t0);
    }
  }
  function account(table: string, rows: number, cpu0: NodeJS.CpuUsage, t0: number) {
    const cpu = process.cpuUsage(cpu0);
    const c = cost.get(table) ?? { inserts: 0, rows: 0, cpuMs: 0, wallMs: 0 };
    c.inserts++;
    c.rows += rows;
    c.cpuMs += (cpu.user + cpu.system) / 1000;
    c.wallMs += performance.now() - t0;
    cost.set(table, c);
  }
  console.log(`${TXS} transactions in ${writes.length} writes of ${GROUP}; per insert:`);
  console.log(`${"table".padEnd(16)} ${"parts".padStart(5)} ${"writes with rows".padStart(16)} ${"rows".padStart(7)} ${"CPU ms".padStart(7)} ${"wall ms".padStart(7)}`);
  let perWrite = 0;
  for (const [table, c] of [...cost].sort((a, b) => b[1].cpuMs - a[1].cpuMs)) {
    perWrite += c.cpuMs / writes.length;
    console.log(
      `${table.padEnd(16)} ${String(1 + (viewsOf.get(table) ?? 0)).padStart(5)} ${`${c.inserts}/${writes.length}`.padStart(16)} ${String(Math.round(c.rows / c.inserts)).padStart(7)} ${String(round(c.cpuMs / c.inserts)).padStart(7)} ${String(round(c.wallMs / c.inserts)).padStart(7)}`,
    );
  }
  console.log(`CPU per write, all tables: ${round(perWrite)} ms (${round((perWrite * 1000) / GROUP)} µs per transaction)`);
} finally {
  await engines.stop();
}
