/**
 * The runtime's airdrop proposals (daemon_proposals, kind 'airdrop'), once approved (by the
 * operator, or by an autonomous agent itself within the runtime's limits), run through the
 * same service as the operator's requests, with ref `proposal-<id>` (so a proposal pays at
 * most once, whichever process takes it) and the proposal's `holders` as the top holders to
 * pay. A refusal (not covered, no eligible holder, no capability, no vault key) is final:
 * recorded on the proposal (`execution`) and told on the agent's stdout; a chain that does
 * not answer leaves the proposal for the next turn.
 */
import { ApiError } from "../../../api/errors";
import { appendStdout } from "../../../api/daemons/store";
import { airdropAgent, executeAirdrop, type AirdropDeps } from "./service";

type Approved = { id: bigint; mint: string; payload: { lamports?: unknown; holders?: unknown } };

export async function executeApprovedAirdrops(deps: AirdropDeps, limit = 20): Promise<number> {
  const approved = await deps.sql<Approved[]>`
    SELECT id, mint, payload FROM daemon_proposals
    WHERE kind = 'airdrop' AND status = 'approved' AND executed_at IS NULL ORDER BY id LIMIT ${limit}`;
  let done = 0;
  for (const p of approved) {
    const finish = async (execution: Record<string, unknown>, line?: { kind: "action" | "error"; body: string }) => {
      await deps.sql.begin(async (tx) => {
        const [marked] = await tx`UPDATE daemon_proposals SET executed_at = now(), execution = ${tx.json(execution as never)} WHERE id = ${p.id.toString()} AND executed_at IS NULL RETURNING id`;
        if (marked && line) await appendStdout(tx as never, p.mint, { ...line, meta: { source: "treasury", change: "proposal.executed", proposalId: p.id.toString(), ...execution } });
      });
      done++;
    };
    const agent = await airdropAgent(deps.sql, p.mint);
    const lamports = typeof p.payload.lamports === "string" && /^\d{1,19}$/.test(p.payload.lamports) ? BigInt(p.payload.lamports) : null;
    const holders = typeof p.payload.holders === "number" && Number.isInteger(p.payload.holders) && p.payload.holders > 0 ? p.payload.holders : undefined;
    if (!agent || lamports === null || lamports === 0n) {
      await finish({ refused: "INVALID_PROPOSAL" }, { kind: "error", body: `Proposal ${p.id} (airdrop) cannot run: its amount is not valid.` });
      continue;
    }
    try {
      const r = await executeAirdrop(deps, agent, { lamports, ref: `proposal-${p.id}`, topHolders: holders }, { requestedBy: "agent", proposalId: p.id });
      await finish({ airdropId: r.id.toString(), ref: r.ref });
    } catch (err) {
      if (err instanceof ApiError && err.status < 500)
        await finish({ refused: err.code, message: err.message }, { kind: "error", body: `Proposal ${p.id} (airdrop) was not run: ${err.message}.` });
      else deps.log.warn("an approved airdrop proposal could not run now; tried again later", { proposal: p.id.toString(), mint: p.mint, err: (err as Error).message });
    }
  }
  return done;
}
