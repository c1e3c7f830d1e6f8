/**
 * The runtime's approved proposals of one kind (daemon_proposals, status 'approved', not yet
 * executed) handed to the action that carries them out. `run` returns what to record on
 * the proposal (`execution`, e.g. the action's id), or throws: an ApiError under 500 is a
 * final refusal (recorded, and told on the agent's stdout), anything else (the chain not
 * answering) leaves the proposal for the next turn. Marking is compare-and-set on
 * `executed_at`, and actions take a proposal with ref `proposal-<id>`, so a proposal runs at
 * most once whichever process takes it.
 */
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import { ApiError } from "../../api/errors";
import { appendStdout } from "../../api/daemons/store";

export type ApprovedProposal = { id: bigint; mint: string; payload: Record<string, unknown> };

/** A payload the action cannot read: refused for good. */
export const invalidProposal = () => new ApiError(400, "INVALID_PROPOSAL", "its amount is not valid");

/** The payload's lamports (a decimal string, as the runtime writes it), or null. */
export const payloadLamports = (p: ApprovedProposal): bigint | null => {
  const l = p.payload.lamports;
  return typeof l === "string" && /^\d{1,19}$/.test(l) && BigInt(l) > 0n ? BigInt(l) : null;
};

export async function executeApprovedProposals(
  deps: { sql: Sql; log: Logger },
  kind: string,
  run: (p: ApprovedProposal) => Promise<Record<string, unknown>>,
  limit = 20,
): Promise<number> {
  const approved = await deps.sql<ApprovedProposal[]>`
    SELECT id, mint, payload FROM daemon_proposals
    WHERE kind = ${kind} AND status = 'approved' AND executed_at IS NULL ORDER BY id LIMIT ${limit}`;
  let done = 0;
  for (const p of approved) {
    const finish = async (execution: Record<string, unknown>, line?: { kind: "action" | "error"; body: string }) => {
      await deps.sql.begin(async (tx) => {
        const [marked] = await tx`UPDATE daemon_proposals SET executed_at = now(), execution = ${tx.json(execution as never)} WHERE id = ${p.id.toString()} AND executed_at IS NULL RETURNING id`;
        if (marked && line) await appendStdout(tx as never, p.mint, { ...line, meta: { source: "treasury", change: "proposal.executed", proposalId: p.id.toString(), ...execution } });
      });
      done++;
    };
    try {
      await finish(await run(p));
    } catch (err) {
      if (err instanceof ApiError && err.status < 500)
        await finish({ refused: err.code, message: err.message }, { kind: "error", body: `Proposal ${p.id} (${kind}) was not run: ${err.message}.` });
      else deps.log.warn(`an approved ${kind} proposal could not run now; tried again later`, { proposal: p.id.toString(), mint: p.mint, err: (err as Error).message });
    }
  }
  return done;
}
