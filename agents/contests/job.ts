/**
 * The contest job (every 5 s in the `agents` process and `npm start`, once at a time across
 * processes): each turn it
 *   1. opens the contests of approved proposals (proposals.ts);
 *   2. ends contests whose `endsAt` passed: takes and stores the holder snapshot
 *      (agents/treasury/snapshot.ts), then a raffle commits to the slot SEED_SLOT_DELAY after
 *      the cluster's current one (→ drawing), and top_holders ranks at once (→ paying);
 *   3. draws the raffles whose seed block is finalized (→ paying, prizes queued as payment
 *      batches in the same transaction; → failed when no holder had a balance);
 *   4. writes the feed items due (publish.ts).
 * The payment executor pays the batches and moves the contest to paid (settle.ts). A failure of
 * one contest (the RPC, say) is logged and tried again next turn; nothing is half-written.
 */
import type { Sql } from "../../infra/postgres";
import type { ClickHouse } from "../../infra/clickhouse";
import type { Logger } from "../../infra/log";
import { LOCKS, withAdvisoryLock } from "../../infra/advisory-lock";
import type { ContestDeps } from "../../api/contests/service";
import { contestsToMove, type ContestRow } from "../../api/contests/store";
import { loadSnapshot, takeSnapshot, type HolderSnapshot, type SnapshotDeps } from "../treasury";
import { drawContest } from "./draw";
import { commitSeed, recordDraw, type FixedSnapshot } from "./moves";
import { executeContestProposals } from "./proposals";
import { publishContests } from "./publish";
import { findSeedBlock, seedSlotAfter, type SeedBlockReader } from "./seed-block";

export type ContestJobDeps = {
  sql: Sql;
  ch: ClickHouse;
  log: Logger;
  /** the contest service (the proposals' contests) */
  contests: ContestDeps;
  /** holder snapshots over RPC */
  snapshots: SnapshotDeps;
  seeds: SeedBlockReader;
};

export type ContestTurn = { created: number; refused: number; committed: number; drawn: number; waiting: number; errors: number; published: number };

/** One turn; null when another process holds the job. */
export async function runContestsOnce(deps: ContestJobDeps): Promise<ContestTurn | null> {
  const run = await withAdvisoryLock(deps.sql, LOCKS.contests, () => turn(deps));
  return run.skipped ? null : run.value;
}

const PER_TURN = 20;

async function turn(deps: ContestJobDeps): Promise<ContestTurn> {
  const out: ContestTurn = { created: 0, refused: 0, committed: 0, drawn: 0, waiting: 0, errors: 0, published: 0 };
  Object.assign(out, await executeContestProposals(deps.contests, PER_TURN));
  const each = async (rows: ContestRow[], step: (c: ContestRow) => Promise<void>) => {
    for (const c of rows)
      await step(c).catch((err) => {
        out.errors++;
        deps.log.warn("contest step failed; tried again next turn", { mint: c.mint, contestId: c.id.toString(), status: c.status, err: (err as Error).message });
      });
  };
  await each(await contestsToMove(deps.sql, "open", PER_TURN), async (c) => {
    const snap = await takeSnapshot(deps.snapshots, c.mint);
    if (c.kind === "top_holders") {
      if (await draw(deps, c, "open", snap)) out.drawn++;
      return;
    }
    // strictly after the snapshot's slot and the cluster's: a block nobody knows yet
    const seedSlot = seedSlotAfter(Math.max(await deps.seeds.currentSlot(), snap.slot));
    if (await commitSeed(deps.sql, c, fixed(snap), seedSlot)) out.committed++;
  });
  await each(await contestsToMove(deps.sql, "drawing", PER_TURN * 5), async (c) => {
    const block = await findSeedBlock(deps.seeds, Number(c.seed_slot));
    if (!block) {
      out.waiting++;
      return;
    }
    const snap = await loadSnapshot(deps.sql, c.snapshot_id!, c.mint);
    if (!snap) throw new Error(`snapshot ${c.snapshot_id} is missing`);
    if (await draw(deps, c, "drawing", snap, { slot: Number(c.seed_slot), ...block })) out.drawn++;
  });
  out.published = await publishContests(deps);
  return out;
}

const fixed = (s: HolderSnapshot): FixedSnapshot => ({ id: s.id, slot: s.slot, snapshotHash: s.snapshotHash, holders: s.entries.length });

function draw(deps: ContestJobDeps, c: ContestRow, from: "open" | "drawing", snap: HolderSnapshot, seed?: { slot: number; blockSlot: number; blockhash: string }) {
  const d = drawContest({ contestId: c.id.toString(), kind: c.kind, weighting: c.weighting, winners: c.winners, holders: snap.entries, snapshotSlot: snap.slot, seed });
  // the stored hash is what was published when the seed was committed: the entries must still give it
  if (d.proof.snapshotHash !== snap.snapshotHash) throw new Error(`snapshot ${snap.id}'s entries no longer give its hash`);
  return recordDraw(deps.sql, c, from, { snap: fixed(snap), proof: d.proof, winners: d.winners, seed: seed && { blockSlot: seed.blockSlot, blockhash: seed.blockhash } });
}
