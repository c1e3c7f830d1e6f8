/**
 * The runtime's contest proposals, once approved (by the operator, or by an autonomous agent
 * itself within the limits), become contests through the same service as the operator's POST
 * (api/contests/service.ts): the same limits, firewall, capability and spend reservation. A
 * proposal makes a holder raffle weighted by balance with an even split, titled after the agent,
 * its note as the rules, ending `endsInMinutes` after it is taken (seconds after the approval). Each proposal is taken once
 * (`daemon_proposals.executed_at`, with `execution` = the contest's id or the refusal).
 */
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import { ApiError } from "../../api/errors";
import { agentRecord, appendStdout } from "../../api/daemons/store";
import { CONTEST_LIMITS, solText, type ContestSpec } from "../../api/contests/model";
import { createContest, type ContestDeps } from "../../api/contests/service";

type ApprovedProposal = { id: bigint; mint: string; payload: { lamports?: string; winners?: number; endsInMinutes?: number; note?: string }; decided_at: Date; decided_by: string | null };

/** The contest a proposal asks for, from its payload (checked by the runtime's tool rules when it was made). */
export function proposalSpec(p: ApprovedProposal, agentName: string, now: Date): ContestSpec {
  return {
    kind: "holders_raffle",
    weighting: "balance",
    title: `${agentName} holder raffle`.slice(0, CONTEST_LIMITS.titleChars),
    rules: (p.payload.note ?? "").slice(0, CONTEST_LIMITS.rulesChars),
    budgetLamports: BigInt(p.payload.lamports ?? "0"),
    winners: Number(p.payload.winners ?? 0),
    splitBps: null,
    endsAt: new Date(now.getTime() + Number(p.payload.endsInMinutes ?? 0) * 60_000),
  };
}

/** Takes the approved contest proposals not taken yet; how many became contests and how many were refused. */
export async function executeContestProposals(deps: ContestDeps & { log: Logger }, limit = 20): Promise<{ created: number; refused: number }> {
  const out = { created: 0, refused: 0 };
  const proposals = await deps.sql<ApprovedProposal[]>`
    SELECT id, mint, payload, decided_at, decided_by FROM daemon_proposals
    WHERE kind = 'contest' AND status = 'approved' AND executed_at IS NULL ORDER BY id LIMIT ${limit}`;
  for (const p of proposals) {
    const execution = await execute(deps, p).catch((err: unknown) => {
      if (!(err instanceof ApiError)) throw err;
      return { error: { code: err.code, message: err.message, details: err.details ?? null } };
    });
    const [marked] = await deps.sql`
      UPDATE daemon_proposals SET executed_at = now(), execution = ${deps.sql.json(execution as never)}
      WHERE id = ${p.id.toString()} AND executed_at IS NULL RETURNING id`;
    if (!marked) continue;
    if ("error" in execution) {
      out.refused++;
      await appendStdout(deps.sql, p.mint, {
        kind: "error",
        body: `Could not open the contest of proposal ${p.id}: ${execution.error.message}.`,
        meta: { source: "contests", proposalId: p.id.toString(), code: execution.error.code },
      });
    } else out.created++;
  }
  return out;
}

async function execute(deps: ContestDeps, p: ApprovedProposal): Promise<{ contestId: string }> {
  // taken before (a crash between the contest and the mark): that contest
  const [made] = await deps.sql<{ id: bigint }[]>`SELECT id FROM contests WHERE proposal_id = ${p.id.toString()}`;
  if (made) return { contestId: made.id.toString() };
  const agent = await agentRecord(deps.sql, p.mint);
  if (!agent) throw new ApiError(404, "NOT_FOUND", `no agent with mint ${p.mint}`);
  const now = new Date();
  const spec = proposalSpec(p, agent.name || agent.coin_name, now);
  const by = p.decided_by === "agent" || !p.decided_by ? "agent" : p.decided_by;
  const line = (contestId: bigint) => ({
    kind: "action" as const,
    body: `Opened contest ${contestId} from proposal ${p.id}: ${solText(spec.budgetLamports)} SOL for ${spec.winners} winner(s), ending ${spec.endsAt.toISOString()}.`,
    meta: { source: "contests", change: "contest.opened", contestId: contestId.toString(), proposalId: p.id.toString() },
  });
  const { id } = await createContest(deps, agent, spec, { by, ref: null, proposalId: p.id, line }, now);
  return { contestId: id };
}
