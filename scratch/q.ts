import { enginesIn } from "../infra/testing/engines";
const engines = await enginesIn(process.argv[2]!, 4);
const n = Number(process.argv[3] ?? 20);
for (const q of process.argv.slice(4)) {
  const c0 = process.cpuUsage(); const t0 = performance.now(); let r: unknown;
  for (let i = 0; i < n; i++) r = await engines.ch.query(q);
  const c = process.cpuUsage(c0);
  console.log(`${((performance.now() - t0) / n).toFixed(2)} ms wall, ${((c.user + c.system) / 1000 / n).toFixed(2)} ms cpu: ${q.slice(0, 100)}`);
  console.log(JSON.stringify(r).slice(0, 400));
}
await engines.stop(); process.exit(0);
