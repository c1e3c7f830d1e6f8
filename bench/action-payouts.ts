/**
 * The analytics overview's Postgres read of paid treasury actions (api/app-public/action-payouts.ts)
 * alone, over `--airdrops` airdrops (default 1,000,000; 90% paid and published, the rest failed or
 * unpublished; one or two confirmed batches each) and a quarter as many contests (90% paid and
 * published), the newest 2,000 airdrops belonging to 5 hidden coins (the read skips them). Times
 * `--samples` sequential reads with the migration 0017 indexes, then (at most 50) without them,
 * and prints each plan.
 * Run: `bun run bench/action-payouts.ts --airdrops 1000000 --samples 1000`.
 */
import { parseArgs } from "node:util";
import { freshEngines } from "../infra/testing/engines";
import { newestActionPayouts } from "../api/app-public/action-payouts";
import { round } from "./measure";

const { values: args } = parseArgs({ options: { airdrops: { type: "string", default: "1000000" }, samples: { type: "string", default: "1000" } } });
const N = Number(args.airdrops);
const C = Math.floor(N / 4);
const say = (msg: string) => console.error(`[bench:action-payouts] ${msg}`);
const engines = await freshEngines("acp-bench-action-payouts", 4);
const { sql } = engines;
const HIDDEN = Array.from({ length: 5 }, (_, i) => `Hidden${i}11111111111111111111111111111111`);

try {
  const t0 = performance.now();
  await sql`INSERT INTO holder_snapshots (mint, slot, token_program, holders, total_atoms, snapshot_hash) VALUES ('m', 1, 'spl-token', 1, 1, 'h')`;
  // airdrop i completes at i seconds past a start; every 10th failed (nothing paid), every 10th + 1 not yet published
  await sql`
    INSERT INTO airdrops (mint, ref, requested_by, lamports, paid_lamports, recipients, snapshot_id, status, completed_at, published_at)
    SELECT CASE WHEN i > ${N - 2000} THEN 'Hidden' || (i % 5) || '11111111111111111111111111111111' ELSE 'Mint' || (i % 10000) END,
           'r' || i, 'agent', 1000000, CASE WHEN i % 10 = 0 THEN 0 ELSE 1000000 END, 2, (SELECT min(id) FROM holder_snapshots),
           CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'paid' END, timestamptz '2026-01-01' + i * interval '1 second',
           CASE WHEN i % 10 = 1 THEN NULL ELSE timestamptz '2026-01-01' + i * interval '1 second' END
    FROM generate_series(1, ${N}) AS i`;
  await sql`
    INSERT INTO contests (mint, ref, request_hash, requested_by, kind, weighting, title, budget_lamports, winners, prizes, ends_at, status, paid_at, published)
    SELECT 'Mint' || (i % 10000), 'r' || i, 'h', 'agent', 'top_holders', 'balance', 't', 3000000, 3, '["1000000","1000000","1000000"]',
           timestamptz '2026-01-01' + i * interval '4 second', CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'paid' END,
           CASE WHEN i % 10 = 0 THEN NULL ELSE timestamptz '2026-01-01' + i * interval '4 second' END,
           CASE WHEN i % 10 = 0 THEN '{contest_opened,contest_drawn}'::text[] ELSE '{contest_opened,contest_drawn,contest_paid}'::text[] END
    FROM generate_series(1, ${C}) AS i`;
  // batches: two per airdrop (the failed ones' failed), one per contest
  await sql`
    INSERT INTO payment_batches (owner_kind, owner_id, seq, payer_kind, payer_mint, payer, lamports, status, signature)
    SELECT 'airdrop', a.id::text, s, 'vault', a.mint, 'vault', 500000, CASE WHEN a.status = 'failed' THEN 'failed' ELSE 'confirmed' END, 'sig' || a.id || '_' || s
    FROM airdrops a, generate_series(0, 1) AS s`;
  await sql`
    INSERT INTO payment_batches (owner_kind, owner_id, seq, payer_kind, payer_mint, payer, lamports, status, signature)
    SELECT 'contest', c.id::text, 0, 'vault', c.mint, 'vault', 3000000, CASE WHEN c.status = 'failed' THEN 'failed' ELSE 'confirmed' END, 'sigc' || c.id
    FROM contests c`;
  await sql`ANALYZE`;
  say(`loaded ${N} airdrops, ${C} contests, ${2 * N + C} batches in ${round((performance.now() - t0) / 1000, 1)} s`);

  const read = () => newestActionPayouts(sql, { limit: 20, hidden: HIDDEN });
  const rows = await read();
  if (rows.length !== 40 || rows.some((r) => HIDDEN.includes(r.mint))) throw new Error(`unexpected answer: ${rows.length} rows`);
  const measure = async (label: string, samples: number) => {
    for (let i = 0; i < 5; i++) await read();
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t = performance.now();
      await read();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const q = (p: number) => round(times[Math.min(times.length - 1, Math.floor(p * times.length))]!, 2);
    console.log(`${label}: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms (${times.length} sequential reads)`);
  };
  const plan = async () => {
    // the read's statement, as postgres.js sends it (parameters inlined for EXPLAIN)
    const lines = await sql.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON)
      (SELECT a.id FROM airdrops a WHERE a.published_at IS NOT NULL AND a.paid_lamports > 0 AND NOT (a.mint = ANY ($1::text[]))
       ORDER BY a.completed_at DESC, a.id DESC LIMIT 20)
      UNION ALL
      (SELECT c.id FROM contests c WHERE c.status = 'paid' AND 'contest_paid' = ANY (c.published) AND NOT (c.mint = ANY ($1::text[]))
       ORDER BY c.paid_at DESC, c.id DESC LIMIT 20)`, [HIDDEN]);
    console.log(lines.map((l) => `  ${l["QUERY PLAN"]}`).join("\n"));
  };
  await measure("with the 0017 indexes", Number(args.samples));
  await plan();
  await sql`DROP INDEX airdrops_paid_newest`;
  await sql`DROP INDEX contests_paid_newest`;
  await measure("without them", Math.min(50, Number(args.samples)));
  await plan();
} finally {
  await engines.stop();
}
