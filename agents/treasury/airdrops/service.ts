/**
 * Airdrops: SOL from an agent's vault to its holders, pro rata by balance (shares.ts), paid
 * in batches of System transfers signed by the vault (the payment executor). Used by the
 * operator's routes (api/treasury/) and by the runtime's approved proposals (proposals.ts).
 *
 * - preview: a fresh snapshot (not stored) and the shares; nothing is written.
 * - execute: refused unless the template has `reward.airdrop`, the platform holds the vault's
 *   key, and the vault's claimed fees cover it; then, in ONE Postgres transaction, the airdrop
 *   record (unique per agent and `ref`), its spend reservation (checked against the claimed
 *   fees under the vault's lock) and its batches. The same `ref` and body again answers the same
 *   and pays nothing more; the same `ref` with another body is 409 REF_REUSED.
 */
import { randomUUID } from "node:crypto";
import type { Sql } from "../../../infra/postgres";
import type { ClickHouse } from "../../../infra/clickhouse";
import type { Logger } from "../../../infra/log";
import type { SolanaRpc } from "../../../infra/solana-rpc";
import type { ConfigRegistry } from "../../../ingest/contract/configs";
import { ApiError } from "../../../api/errors";
import { capabilitiesOf } from "../../../api/daemons/catalog";
import { appendStdout } from "../../../api/daemons/store";
import { solText } from "../../runtime/tools";
import { loadSnapshot, readHolders, snapshotView, storeSnapshot, type HolderRead } from "../snapshot";
import type { AirdropActions } from "../../../api/treasury/actions";
import { claimedFeesOf, reserveVaultSpend, vaultRoom } from "../spend";
import { enqueuePayments, batchesOf, batchView } from "../batches";
import { holdsVaultKey } from "../signers";
import { capabilityMissing, chainFailed, chainUnavailable, notCovered, refReused, vaultKeyMissing } from "../errors";
import { airdropShares, MIN_PAYOUT_LAMPORTS, type Shares } from "./shares";

export const AIRDROP_OWNER = "airdrop";
export const AIRDROP_CAPABILITY = "reward.airdrop" as const;

export type AirdropDeps = { sql: Sql; ch: ClickHouse; rpc: Pick<SolanaRpc, "getTokenAccounts"> | null; configs: ConfigRegistry; log: Logger };
export type AirdropAgent = { mint: string; vault: string; config: string; template: string };
export type AirdropRequest = { lamports: bigint; ref?: string; topHolders?: number };

/** The agent's wallets and template (the routes have checked who asks). */
export async function airdropAgent(sql: Sql, mint: string): Promise<AirdropAgent | null> {
  const [a] = await sql<AirdropAgent[]>`SELECT mint, vault, config, template FROM agents WHERE mint = ${mint}`;
  return a ?? null;
}

const solQuoted = (deps: AirdropDeps, a: AirdropAgent) => deps.configs.byAddress.get(a.config)?.quote.kind !== "stock";

function requireCapability(a: AirdropAgent) {
  if (!capabilitiesOf(a.template).includes(AIRDROP_CAPABILITY)) throw capabilityMissing(AIRDROP_CAPABILITY, a.template);
}

async function freshHolders(deps: AirdropDeps, a: AirdropAgent): Promise<HolderRead> {
  if (!deps.rpc) throw chainUnavailable();
  try {
    return await readHolders({ sql: deps.sql, rpc: deps.rpc, configs: deps.configs }, a.mint);
  } catch (err) {
    throw chainFailed("reading the coin's holders", err);
  }
}

async function roomOf(deps: AirdropDeps, a: AirdropAgent) {
  const claimed = await claimedFeesOf(deps.ch, { mint: a.mint, vault: a.vault, solQuoted: solQuoted(deps, a) });
  return vaultRoom(deps.sql, claimed.totalLamports, a.vault);
}

const sharesView = (s: Shares) => ({
  recipients: s.shares.length,
  folded: { holders: s.folded.holders, atoms: s.folded.atoms.toString() },
  shares: s.shares.map((x) => ({ owner: x.owner, balance: x.balance.toString(), lamports: x.lamports.toString() })),
});

/** POST mode=preview: the holders and their shares from a fresh snapshot; nothing moves, nothing is stored. */
export async function previewAirdrop(deps: AirdropDeps, a: AirdropAgent, r: AirdropRequest) {
  requireCapability(a);
  const [holders, room] = await Promise.all([freshHolders(deps, a), roomOf(deps, a)]);
  const shares = airdropShares(holders.entries, r.lamports, { topHolders: r.topHolders });
  return {
    mode: "preview" as const,
    lamports: r.lamports.toString(),
    minimumPayoutLamports: MIN_PAYOUT_LAMPORTS.toString(),
    snapshot: { slot: holders.slot, holders: holders.entries.length, totalAtoms: holders.totalAtoms.toString(), snapshotHash: holders.snapshotHash },
    ...sharesView(shares),
    vault: { claimedLamports: room.claimedLamports.toString(), committedLamports: room.committedLamports.toString(), availableLamports: room.availableLamports.toString() },
    covered: r.lamports <= room.availableLamports,
  };
}

type AirdropRow = { id: bigint; mint: string; ref: string; lamports: bigint; top_holders: number | null };

/** The earlier answer for this ref, or 409 when the ref was used for another request; null when unused. */
async function replay(sql: Sql, mint: string, ref: string, r: AirdropRequest) {
  const [row] = await sql<AirdropRow[]>`SELECT id, mint, ref, lamports, top_holders FROM airdrops WHERE mint = ${mint} AND ref = ${ref}`;
  if (!row) return null;
  if (BigInt(row.lamports) !== r.lamports || (row.top_holders ?? undefined) !== r.topHolders) throw refReused(ref);
  return { ref, queued: true as const, id: row.id };
}

/**
 * POST mode=execute: 202 `{ ref, queued }`. `by`: the operator's wallet, or "agent" with the
 * proposal it executes. Also answers `id` (the airdrop's) for callers inside the platform.
 */
export async function executeAirdrop(deps: AirdropDeps, a: AirdropAgent, r: AirdropRequest, by: { requestedBy: string; proposalId?: bigint }) {
  const ref = r.ref ?? `airdrop-${randomUUID()}`;
  const earlier = await replay(deps.sql, a.mint, ref, r);
  if (earlier) return earlier;
  requireCapability(a);
  if (!(await holdsVaultKey(deps.sql, a.vault))) throw vaultKeyMissing(a.mint);
  const claimed = await claimedFeesOf(deps.ch, { mint: a.mint, vault: a.vault, solQuoted: solQuoted(deps, a) });
  // refused before a snapshot is taken when it cannot be covered anyway (checked again, locked, below)
  const before = await vaultRoom(deps.sql, claimed.totalLamports, a.vault);
  if (r.lamports > before.availableLamports) throw notCovered(r.lamports, before);
  const holders = await freshHolders(deps, a);
  const shares = airdropShares(holders.entries, r.lamports, { topHolders: r.topHolders });
  if (shares.shares.length === 0)
    throw new ApiError(409, "NO_ELIGIBLE_HOLDERS", `no holder of ${a.mint} can be paid the minimum payout of ${MIN_PAYOUT_LAMPORTS} lamports`, { holders: holders.entries.length });
  const snapshot = await storeSnapshot(deps.sql, holders);

  const outcome = await deps.sql.begin(async (t) => {
    const tx = t as unknown as Sql;
    const [row] = await tx<{ id: bigint }[]>`
      INSERT INTO airdrops (mint, ref, requested_by, proposal_id, lamports, recipients, top_holders, snapshot_id)
      VALUES (${a.mint}, ${ref}, ${by.requestedBy}, ${by.proposalId?.toString() ?? null}, ${r.lamports.toString()}, ${shares.shares.length},
              ${r.topHolders ?? null}, ${snapshot.id.toString()})
      ON CONFLICT DO NOTHING RETURNING id`;
    if (!row) return "raced" as const;
    const reserved = await reserveVaultSpend(tx, { mint: a.mint, vault: a.vault, ownerKind: AIRDROP_OWNER, ownerId: row.id.toString(), lamports: r.lamports, claimedLamports: claimed.totalLamports });
    if (!reserved.ok) throw notCovered(r.lamports, reserved);
    await enqueuePayments(tx, {
      ownerKind: AIRDROP_OWNER,
      ownerId: row.id.toString(),
      payer: { kind: "vault", mint: a.mint },
      transfers: shares.shares.map((s) => ({ recipient: s.owner, lamports: s.lamports })),
    });
    await appendStdout(tx, a.mint, {
      kind: "action",
      body: `Airdrop of ${solText(r.lamports)} SOL to ${shares.shares.length} holder(s) queued (snapshot at slot ${snapshot.slot}, ref ${ref}).`,
      meta: { source: by.requestedBy === "agent" ? "runtime" : "operator", change: "airdrop.queued", airdropId: row.id.toString(), ref, ...(by.proposalId ? { proposalId: by.proposalId.toString() } : {}) },
    });
    return row.id;
  });
  if (outcome === "raced") {
    const again = await replay(deps.sql, a.mint, ref, r);
    if (again) return again;
    throw new Error(`airdrop ${ref} of ${a.mint} neither inserted nor found`);
  }
  deps.log.info("airdrop queued", { mint: a.mint, airdrop: outcome.toString(), ref, lamports: r.lamports.toString(), recipients: shares.shares.length });
  return { ref, queued: true as const, id: outcome };
}

type ListRow = {
  id: bigint; ref: string; requested_by: string; proposal_id: bigint | null; lamports: bigint; paid_lamports: bigint; recipients: number; top_holders: number | null;
  status: "paying" | "paid" | "partial" | "failed"; created_at: Date; completed_at: Date | null; snapshot_id: bigint; slot: bigint; holders: number; snapshot_hash: string;
};

/** GET: newest first (`cursor` = the last id of the page before), each with its snapshot and batches with their transactions. */
export async function listAirdrops(sql: Sql, mint: string, q: { limit: number; cursor?: string }) {
  const rows = await sql<ListRow[]>`
    SELECT a.id, a.ref, a.requested_by, a.proposal_id, a.lamports, a.paid_lamports, a.recipients, a.top_holders, a.status, a.created_at, a.completed_at,
           a.snapshot_id, s.slot, s.holders, s.snapshot_hash
    FROM airdrops a JOIN holder_snapshots s ON s.id = a.snapshot_id
    WHERE a.mint = ${mint} ${q.cursor ? sql`AND a.id < ${q.cursor}` : sql``}
    ORDER BY a.id DESC LIMIT ${q.limit + 1}`;
  const page = rows.slice(0, q.limit);
  const batches = await batchesOf(sql, AIRDROP_OWNER, page.map((r) => r.id.toString()));
  return {
    items: page.map((r) => ({
      id: r.id.toString(),
      ref: r.ref,
      status: r.status,
      lamports: r.lamports.toString(),
      paidLamports: r.paid_lamports.toString(),
      recipients: r.recipients,
      topHolders: r.top_holders,
      requestedBy: r.requested_by === "agent" ? ("agent" as const) : ("operator" as const),
      proposalId: r.proposal_id?.toString() ?? null,
      snapshot: { id: r.snapshot_id.toString(), slot: Number(r.slot), holders: r.holders, snapshotHash: r.snapshot_hash },
      createdAt: r.created_at.toISOString(),
      completedAt: r.completed_at?.toISOString() ?? null,
      batches: batches.filter((b) => b.owner_id === r.id.toString()).map(batchView),
    })),
    nextCursor: rows.length > q.limit ? page.at(-1)!.id.toString() : null,
  };
}

/** The airdrop actions the routes call (api/treasury/actions.ts), over these deps. */
export function airdropActions(deps: AirdropDeps): AirdropActions {
  const agent = async (mint: string) => {
    const a = await airdropAgent(deps.sql, mint);
    if (!a) throw new Error(`no agent with mint ${mint}`);
    return a;
  };
  return {
    preview: async (mint, r) => previewAirdrop(deps, await agent(mint), r),
    execute: async (mint, r, by) => {
      const done = await executeAirdrop(deps, await agent(mint), r, by);
      return { ref: done.ref, queued: done.queued };
    },
    list: (mint, q) => listAirdrops(deps.sql, mint, q),
    async snapshot(mint, airdropId) {
      const [a] = await deps.sql<{ snapshot_id: bigint }[]>`SELECT snapshot_id FROM airdrops WHERE mint = ${mint} AND id = ${airdropId}`;
      const s = a ? await loadSnapshot(deps.sql, a.snapshot_id, mint) : null;
      return s ? snapshotView(s) : null;
    },
  };
}
