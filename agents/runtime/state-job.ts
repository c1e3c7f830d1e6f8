/**
 * Applies the state machine (states.ts) to every agent past `forming`: reads each agent's
 * pause flag and budget inputs in one query, and for each agent whose state changes writes
 * the new state, its reason and a stdout line in one transaction (compare-and-set on the
 * old state, so two processes running this job never tell one move twice), then mirrors
 * the changed agents into the ClickHouse directory. An agent that wakes gets a cycle due now.
 */
import type { Sql } from "../../infra/postgres";
import { fuelMicros } from "../../api/daemons/fuel";
import { appendStdout, inTx } from "../../api/daemons/store";
import { nextState, transitionLine, type AgentState } from "./states";

export type StateJobDeps = {
  sql: Sql;
  /** USD per SOL now (else the last known); null when none was ever known */
  solUsd: () => Promise<number | null>;
  /** whether a model provider is configured (the built-in demo one counts) */
  provider: boolean;
  /** mirrors changed agents into the ClickHouse directory */
  onAgentsChanged?: (mints: string[]) => Promise<void>;
};

type Row = { mint: string; state: AgentState; state_reason: string; paused: boolean; lamports: bigint | null; usdc_atoms: bigint | null; unsettled: bigint };

export type Move = { mint: string; from: AgentState; to: AgentState; reason: string };

export async function refreshAgentStates(deps: StateJobDeps, only?: string[]): Promise<Move[]> {
  const { sql } = deps;
  const [rows, solUsd] = await Promise.all([
    sql<Row[]>`
      SELECT a.mint, a.state, a.state_reason, a.paused, w.lamports, w.usdc_atoms,
             COALESCE(s.unsettled, 0)::bigint AS unsettled
      FROM agents a
      LEFT JOIN wallet_balances w ON w.address = a.vault
      LEFT JOIN (SELECT mint, sum(usd_micros) AS unsettled FROM daemon_spend WHERE kind = 'spend' AND settled_at IS NULL GROUP BY mint) s ON s.mint = a.mint
      WHERE a.state <> 'forming' ${only ? sql`AND a.mint IN ${sql(only)}` : sql``}`,
    deps.solUsd(),
  ]);
  const moves: Move[] = [];
  for (const r of rows) {
    const fuel = fuelMicros({
      lamports: r.lamports === null ? null : BigInt(r.lamports),
      usdcAtoms: r.usdc_atoms === null ? null : BigInt(r.usdc_atoms),
      balanceReadAt: null,
      unsettledMicros: BigInt(r.unsettled),
      solUsd,
    });
    const to = nextState({ state: r.state, paused: r.paused, fuelMicros: fuel, provider: deps.provider });
    if (to.state === r.state && to.reason === r.state_reason) continue;
    const moved = await inTx(sql, async (tx) => {
      const [u] = await tx`UPDATE agents SET state = ${to.state}, state_reason = ${to.reason}, updated_at = now() WHERE mint = ${r.mint} AND state = ${r.state} RETURNING mint`;
      if (!u || to.state === r.state) return false; // gone, moved by another process, or only the reason changed
      await appendStdout(tx, r.mint, { kind: "action", ...transitionLine(r.state, to, fuel), meta: { source: "runtime", change: "state", from: r.state, to: to.state, reason: to.reason } });
      if (to.state === "awake") await tx`INSERT INTO agent_cycles (mint, due_at) VALUES (${r.mint}, now()) ON CONFLICT (mint) DO UPDATE SET due_at = LEAST(agent_cycles.due_at, now())`;
      return true;
    });
    if (moved) moves.push({ mint: r.mint, from: r.state, to: to.state, reason: to.reason });
  }
  if (moves.length && deps.onAgentsChanged) await deps.onAgentsChanged(moves.map((m) => m.mint));
  return moves;
}

/**
 * The operator's pause (no route yet: the operator endpoints of a later change call this).
 * Paused: frozen at once, with its line; unpaused: the next state-job run decides.
 */
export async function setPaused(deps: StateJobDeps, mint: string, paused: boolean): Promise<Move[]> {
  await deps.sql`UPDATE agents SET paused = ${paused} WHERE mint = ${mint} AND paused <> ${paused}`;
  return refreshAgentStates(deps, [mint]);
}
