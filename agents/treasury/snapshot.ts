/**
 * Holder snapshots: a coin's holders at a slot, read from the chain (getProgramAccounts by
 * mint on the coin's token program, with the answer's context slot), stored and public.
 * Owners whose accounts never count are left out (the pool authorities that own the pools'
 * vaults, the incinerator, and the agent's own vault); an owner's token accounts are added
 * together; zero balances are dropped.
 *
 * `snapshotHash` = SHA-256 (lowercase hex) of the lines `owner:amount\n` sorted by owner in
 * byte order, amount in atoms as a decimal integer: anyone holding the entries can recompute
 * it (contest draws are seeded with it).
 */
import { createHash } from "node:crypto";
import type { Sql } from "../../infra/postgres";
import type { SolanaRpc, TokenAccountBalance } from "../../infra/solana-rpc";
import type { ConfigRegistry } from "../../ingest/contract/configs";
import { NEVER_HOLDERS } from "../../ingest/contract/never-holders";

export type TokenProgram = "spl-token" | "token-2022";
export type HolderEntry = { owner: string; amount: bigint };

/** A snapshot before it is stored (a preview uses one without storing it). */
export type HolderRead = {
  mint: string;
  slot: number;
  tokenProgram: TokenProgram;
  /** sorted by owner (byte order) */
  entries: HolderEntry[];
  totalAtoms: bigint;
  snapshotHash: string;
  excluded: string[];
};
export type HolderSnapshot = HolderRead & { id: bigint; takenAt: Date };

export type SnapshotDeps = {
  sql: Sql;
  rpc: Pick<SolanaRpc, "getTokenAccounts">;
  configs: ConfigRegistry;
};

/** Byte order of base58 text (ASCII): the order the hash's lines are in. */
export const byOwner = (a: { owner: string }, b: { owner: string }) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0);

/** SHA-256 hex of `owner:amount\n` lines sorted by owner. */
export function snapshotHash(entries: readonly HolderEntry[]): string {
  const h = createHash("sha256");
  for (const e of [...entries].sort(byOwner)) h.update(`${e.owner}:${e.amount}\n`);
  return h.digest("hex");
}

/** Pure: token accounts to holders (aggregated by owner, excluded owners and zero balances left out), sorted by owner. */
export function holdersOf(accounts: readonly TokenAccountBalance[], excluded: ReadonlySet<string>): HolderEntry[] {
  const byOwnerMap = new Map<string, bigint>();
  const seen = new Set<string>();
  for (const a of accounts) {
    if (seen.has(a.account) || excluded.has(a.owner) || a.amount === 0n) continue;
    seen.add(a.account);
    byOwnerMap.set(a.owner, (byOwnerMap.get(a.owner) ?? 0n) + a.amount);
  }
  return [...byOwnerMap].map(([owner, amount]) => ({ owner, amount })).sort(byOwner);
}

type AgentWallets = { vault: string; config: string };

async function agentWallets(sql: Sql, mint: string): Promise<AgentWallets | null> {
  const [a] = await sql<AgentWallets[]>`SELECT vault, config FROM agents WHERE mint = ${mint}`;
  return a ?? null;
}

/**
 * Reads the holders of `mint` from the chain (nothing stored). The token program is the coin's
 * config's; for a coin whose config this deployment does not know, SPL Token, then Token-2022
 * when SPL Token holds no account of it. Throws when the agent is unknown or the RPC fails.
 */
export async function readHolders(deps: Omit<SnapshotDeps, "sql"> & { sql: Sql }, mint: string): Promise<HolderRead> {
  const agent = await agentWallets(deps.sql, mint);
  if (!agent) throw new Error(`no agent with mint ${mint}`);
  const known = deps.configs.byAddress.get(agent.config)?.tokenProgram;
  let tokenProgram: TokenProgram = known ?? "spl-token";
  let answer = await deps.rpc.getTokenAccounts(mint, tokenProgram);
  if (!known && answer.accounts.length === 0) {
    tokenProgram = "token-2022";
    answer = await deps.rpc.getTokenAccounts(mint, tokenProgram);
  }
  const excluded = [...NEVER_HOLDERS, agent.vault];
  const entries = holdersOf(answer.accounts, new Set(excluded));
  return {
    mint,
    slot: answer.slot,
    tokenProgram,
    entries,
    totalAtoms: entries.reduce((s, e) => s + e.amount, 0n),
    snapshotHash: snapshotHash(entries),
    excluded,
  };
}

/** Stores a read snapshot (header and entries in one transaction); returns it with its id. */
export async function storeSnapshot(sql: Sql, read: HolderRead): Promise<HolderSnapshot> {
  return (await sql.begin(async (tx) => {
    const [row] = await tx<{ id: bigint; taken_at: Date }[]>`
      INSERT INTO holder_snapshots (mint, slot, token_program, holders, total_atoms, snapshot_hash, excluded)
      VALUES (${read.mint}, ${read.slot}, ${read.tokenProgram}, ${read.entries.length}, ${read.totalAtoms.toString()}, ${read.snapshotHash}, ${tx.json(read.excluded)})
      RETURNING id, taken_at`;
    const id = row!.id;
    for (let i = 0; i < read.entries.length; i += 5000) {
      const rows = read.entries.slice(i, i + 5000).map((e) => ({ snapshot_id: id.toString(), owner: e.owner, amount: e.amount.toString() }));
      await tx`INSERT INTO holder_snapshot_entries ${tx(rows, "snapshot_id", "owner", "amount")}`;
    }
    return { ...read, id, takenAt: row!.taken_at };
  })) as HolderSnapshot;
}

/** takeSnapshot: read from the chain and store. */
export async function takeSnapshot(deps: SnapshotDeps, mint: string): Promise<HolderSnapshot> {
  return storeSnapshot(deps.sql, await readHolders(deps, mint));
}

type SnapshotRow = { id: bigint; mint: string; slot: bigint; taken_at: Date; token_program: TokenProgram; total_atoms: string; snapshot_hash: string; excluded: string[] };

/** A stored snapshot with its entries (sorted by owner), or null. `mint`, when given, must match. */
export async function loadSnapshot(sql: Sql, id: bigint | string, mint?: string): Promise<HolderSnapshot | null> {
  const [h] = await sql<SnapshotRow[]>`
    SELECT id, mint, slot, taken_at, token_program, total_atoms::text AS total_atoms, snapshot_hash, excluded
    FROM holder_snapshots WHERE id = ${id.toString()} ${mint ? sql`AND mint = ${mint}` : sql``}`;
  if (!h) return null;
  const rows = await sql<{ owner: string; amount: string }[]>`
    SELECT owner, amount::text AS amount FROM holder_snapshot_entries WHERE snapshot_id = ${h.id.toString()} ORDER BY owner COLLATE "C"`;
  return {
    id: h.id,
    mint: h.mint,
    slot: Number(h.slot),
    takenAt: h.taken_at,
    tokenProgram: h.token_program,
    entries: rows.map((r) => ({ owner: r.owner, amount: BigInt(r.amount) })),
    totalAtoms: BigInt(h.total_atoms),
    snapshotHash: h.snapshot_hash,
    excluded: h.excluded,
  };
}

/** The public shape of a snapshot (amounts as decimal strings). */
export function snapshotView(s: HolderSnapshot, o: { entries?: boolean } = {}) {
  return {
    id: s.id.toString(),
    mint: s.mint,
    slot: s.slot,
    takenAt: s.takenAt.toISOString(),
    tokenProgram: s.tokenProgram,
    holders: s.entries.length,
    totalAtoms: s.totalAtoms.toString(),
    snapshotHash: s.snapshotHash,
    excluded: s.excluded,
    ...(o.entries === false ? {} : { entries: s.entries.map((e) => ({ owner: e.owner, amount: e.amount.toString() })) }),
  };
}
