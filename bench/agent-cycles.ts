/**
 * Decision cycles per second through the agent runtime (agents/runtime/: the scheduler's
 * Postgres leases, context reads, the `openai` client, stdout lines, spend, the activity
 * insert) against the loopback OpenAI-compatible TEST DOUBLE, which answers at once with
 * one `decision` tool call. 10,000 awake agents are due at the start; the clock runs until
 * each has run one cycle. The runtime's overhead per cycle is a cycle's mean wall time
 * less its mean model-call time (the double's HTTP round trip included in the latter).
 * The market reader is an in-memory stub (its Data API reads are benchmarked in bench/run.ts).
 * Run: `bun run bench/agent-cycles.ts [--agents 10000] [--concurrency 16] [--tool decision|none]`.
 */
import { parseArgs } from "node:util";
import { Keypair } from "@solana/web3.js";
import { freshEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { loadFirewall } from "../api/firewall/firewall";
import { openAiProvider, type ModelProvider } from "../agents/runtime/provider";
import { startScheduler } from "../agents/runtime/scheduler";
import { startOpenAiDouble } from "../agents/runtime/testing/openai-double";
import { batchedActivityWriter } from "../agents/runtime/activity-writer";

const { values } = parseArgs({ options: { agents: { type: "string", default: "10000" }, concurrency: { type: "string", default: "16" }, tool: { type: "string", default: "decision" } } });
const AGENTS = Number(values.agents);
const CONCURRENCY = Number(values.concurrency);

const e = await freshEngines("acp-bench-cycles", CONCURRENCY + 8);
const double = startOpenAiDouble();
double.script(() => ({
  kind: "tools",
  content: "Steady market.",
  calls: values.tool === "none" ? [] : [{ name: "decision", arguments: JSON.stringify({ summary: "Hold", reason: "Nothing calls for spending." }) }],
  usage: { prompt_tokens: 900, completion_tokens: 60 },
}));
try {
  const mints = Array.from({ length: AGENTS }, () => Keypair.generate().publicKey.toBase58());
  for (let i = 0; i < mints.length; i += 1000) {
    const rows = mints.slice(i, i + 1000).map((mint) => ({ mint, coin_name: "Bench", symbol: "BN", creator: mint, vault: mint, dbc_pool: mint, state: "awake", model: "house/small", template: "trader", autonomy: "autonomous" }));
    await e.sql`INSERT INTO agents ${e.sql(rows)}`;
    await e.sql`INSERT INTO agent_cycles ${e.sql(rows.map((r) => ({ mint: r.mint })))}`;
  }
  await e.sql`ANALYZE`;

  const real = openAiProvider({ url: double.url, key: "bench" });
  let callMs = 0;
  const provider: ModelProvider = {
    name: real.name,
    async complete(req) {
      const t = performance.now();
      try {
        return await real.complete(req);
      } finally {
        callMs += performance.now() - t;
      }
    },
  };
  let done = 0;
  let cycleMs = 0;
  let errors = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const scheduler = startScheduler({
    sql: e.sql,
    log: createLogger("error"),
    cadenceMs: 3_600_000,
    timeoutMs: 30_000,
    concurrency: CONCURRENCY,
    pollMs: 50,
    cycle: {
      sql: e.sql, activity: batchedActivityWriter(e.ch), provider, firewall: loadFirewall(),
      models: [{ id: "house/small", inputMicrosPerMTok: 150_000, outputMicrosPerMTok: 600_000 }],
      market: { facts: async () => ({ priceSol: 0.000002, volume24hSol: "12.5", change24hPct: 3 }), activity: async () => [] },
      retry: { retries: 2, minDelayMs: 100, maxDelayMs: 1000 },
      callTimeoutMs: 10_000,
    },
    onCycle: (_m, r, ms) => {
      cycleMs += ms;
      if (!r?.ok || r.errors) errors++;
      if (++done === AGENTS) finished();
    },
  });
  await all;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await scheduler.stop();
  const result = {
    agents: AGENTS,
    concurrency: CONCURRENCY,
    tool: values.tool,
    seconds: +seconds.toFixed(2),
    cyclesPerSecond: +(AGENTS / seconds).toFixed(1),
    meanCycleMs: +(cycleMs / AGENTS).toFixed(2),
    meanModelCallMs: +(callMs / AGENTS).toFixed(2),
    overheadPerCycleMs: +((cycleMs - callMs) / AGENTS).toFixed(2),
    processCpuMsPerCycle: +((cpu.user + cpu.system) / 1000 / AGENTS).toFixed(2),
    errors,
  };
  console.log(JSON.stringify(result));
  console.log(`| ${AGENTS} agents, ${CONCURRENCY} at once, ${values.tool} | ${result.cyclesPerSecond} cycles/s | cycle ${result.meanCycleMs} ms (model call ${result.meanModelCallMs} ms, runtime ${result.overheadPerCycleMs} ms) | CPU ${result.processCpuMsPerCycle} ms/cycle (runtime and double) |`);
} finally {
  double.stop();
  await e.stop();
}
