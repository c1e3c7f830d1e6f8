/**
 * Chain-following state in Postgres: every platform coin gets its agent when its
 * pool appears on-chain, and the public directory in ClickHouse is refreshed.
 */
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { PoolCreated } from "../ingest/contract/facts";
import type { ConfigRegistry } from "../ingest/contract/configs";

export type AgentRow = {
  mint: string;
  coin_name: string;
  symbol: string;
  name: string | null;
  category: string;
  status: string;
  state: string;
  hidden: boolean;
  created_at: Date;
  config: string;
  /** the wallet that launched the coin, and the agent's own wallet: payouts from the treasury go to either */
  creator: string;
  vault: string;
  /** bumped by Postgres on every change of the row (migration 0008) */
  directory_version: bigint;
};

/**
 * Directory versions were once taken from each process's clock (microseconds, about
 * 1.8e15 today); versions from the registry are placed above all of those.
 */
const REGISTRY_VERSIONS = 1n << 62n;
const AGENT_COLUMNS = ["mint", "coin_name", "symbol", "name", "category", "status", "state", "hidden", "created_at", "config", "creator", "vault", "directory_version"];

/**
 * Mirrors agents into the ClickHouse directory the agents list reads. Each row carries
 * the version Postgres gave the agent's last change, so a mirror written late (another
 * process, a slow write) never replaces a newer one.
 */
export async function mirrorDirectory(ch: ClickHouse, configs: ConfigRegistry, agents: AgentRow[]): Promise<void> {
  if (agents.length === 0) return;
  await ch.insert(
    "agent_directory",
    agents.map((a) => {
      const cfg = configs.byAddress.get(a.config);
      return {
        mint: a.mint,
        version: REGISTRY_VERSIONS + BigInt(a.directory_version),
        name: a.name || a.coin_name,
        coin_name: a.coin_name,
        symbol: a.symbol,
        category: a.category,
        status: a.status,
        state: a.state,
        hidden: a.hidden ? 1 : 0,
        created_at: a.created_at.getTime(),
        config: a.config,
        creator: a.creator,
        vault: a.vault,
        decimals: cfg?.tokenDecimals ?? 6,
        supply_atoms: cfg?.supplyAtoms ?? 0n,
        start_sqrt_price: cfg?.sqrtStartPrice ?? 0n,
      };
    }),
  );
}

/**
 * Creates (or completes, for a launch prepared through the Launch API) the agents of
 * newly created pools. Defaults: template baseline, category community, quiet, no
 * name, status active, state asleep; the vault is the pool creator.
 */
export async function upsertAgentsForPools(sql: Sql, pools: PoolCreated[]): Promise<AgentRow[]> {
  if (pools.length === 0) return [];
  const rows = pools.map((p) => ({
    mint: p.mint,
    coin_name: p.name,
    symbol: p.symbol.toUpperCase(),
    metadata_uri: p.uri,
    creator: p.payer || p.creator,
    vault: p.creator,
    config: p.config,
    dbc_pool: p.pool,
    created_slot: p.slot,
    created_at: new Date(p.blockTime * 1000),
  }));
  return sql<AgentRow[]>`
    INSERT INTO agents ${sql(rows, "mint", "coin_name", "symbol", "metadata_uri", "creator", "vault", "config", "dbc_pool", "created_slot", "created_at")}
    ON CONFLICT (mint) DO UPDATE SET
      coin_name = EXCLUDED.coin_name,
      symbol = EXCLUDED.symbol,
      metadata_uri = EXCLUDED.metadata_uri,
      config = EXCLUDED.config,
      dbc_pool = EXCLUDED.dbc_pool,
      created_slot = EXCLUDED.created_slot,
      created_at = LEAST(agents.created_at, EXCLUDED.created_at),
      state = CASE WHEN agents.state = 'forming' THEN 'asleep' ELSE agents.state END,
      status = 'active',
      updated_at = now()
    WHERE agents.dbc_pool = '' OR agents.state = 'forming'
    RETURNING ${sql(AGENT_COLUMNS)}`;
}

/** Re-mirrors agents whose registry row changed after their pool was seen (a launch confirmed late). */
export async function refreshDirectory(sql: Sql, ch: ClickHouse, configs: ConfigRegistry, mints: string[]): Promise<void> {
  if (mints.length === 0) return;
  const rows = await sql<AgentRow[]>`
    SELECT ${sql(AGENT_COLUMNS)}
    FROM agents WHERE mint IN ${sql(mints)} AND dbc_pool <> ''`;
  await mirrorDirectory(ch, configs, rows);
}
