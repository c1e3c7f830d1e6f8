/**
 * Contests composed: the service's view of the treasury core (agents/treasury/: the vault's
 * claimed fees and spend ledger, vault keys, snapshots), shared by the API's routes and the
 * `agents` process's contest job, which also needs the chain (snapshots, seed blocks).
 */
import type { Sql } from "../infra/postgres";
import type { ClickHouse } from "../infra/clickhouse";
import type { Logger } from "../infra/log";
import type { SolanaRpc } from "../infra/solana-rpc";
import type { ConfigRegistry } from "../ingest/contract/configs";
import type { Firewall } from "../api/firewall/firewall";
import type { ContestDeps, ContestTreasury } from "../api/contests/service";
import { claimedFeesOf, holdsVaultKey, loadSnapshot, releaseVaultSpend, reserveVaultSpend, snapshotView } from "../agents/treasury";
import { seedBlockReader } from "../agents/contests/seed-block";
import type { ContestJobDeps } from "../agents/contests/job";
import type { DrawProof } from "../agents/contests/draw";
import type { BatchStatus } from "../agents/treasury";
import type * as v from "valibot";
import type { DrawProof as DocumentedProof } from "../api/contests/responses";
import type { HolderSnapshot, PAYMENT_STATUSES } from "../api/openapi/treasury";

export function contestTreasury(ch: ClickHouse, configs: ConfigRegistry): ContestTreasury {
  return {
    // as airdrops count it (the same room): a coin is SOL-quoted unless its config pairs it with a stock
    claimedLamports: async (o) => (await claimedFeesOf(ch, { mint: o.mint, vault: o.vault, solQuoted: configs.byAddress.get(o.config)?.quote.kind !== "stock" })).totalLamports,
    reserve: reserveVaultSpend,
    release: releaseVaultSpend,
    holdsVaultKey,
    snapshot: async (sql, id) => {
      const s = await loadSnapshot(sql, id);
      return s && snapshotView(s);
    },
  };
}

/** `chain`: whether this deployment reads the chain (SOLANA_RPC_URL): without it no contest could be drawn or paid. */
export function contestDeps(engines: { sql: Sql; ch: ClickHouse }, configs: ConfigRegistry, firewall: Firewall, log: Logger, chain: boolean): ContestDeps {
  return { sql: engines.sql, firewall, log: log.child({ stage: "contests" }), treasury: contestTreasury(engines.ch, configs), chain };
}

/** The contest job's deps; none without a chain (snapshots and seed blocks are read over RPC). */
export function contestJobDeps(engines: { sql: Sql; ch: ClickHouse }, configs: ConfigRegistry, rpc: SolanaRpc | null, firewall: Firewall, log: Logger): ContestJobDeps | null {
  if (!rpc) return null;
  const contests = contestDeps(engines, configs, firewall, log, true);
  return { sql: engines.sql, ch: engines.ch, log: contests.log, contests, snapshots: { sql: engines.sql, rpc, configs }, seeds: seedBlockReader(rpc.connection) };
}

// What the API documents (api/contests/responses.ts, api/openapi/treasury.ts) is what the treasury core and the draw
// write: api/ does not import agents/, so the types are held together here.
({}) as DrawProof satisfies v.InferOutput<typeof DocumentedProof>;
({}) as Required<ReturnType<typeof snapshotView>> satisfies v.InferOutput<typeof HolderSnapshot>;
({}) as BatchStatus satisfies (typeof PAYMENT_STATUSES)[number];
