/**
 * The runtime's airdrop proposals (daemon_proposals, kind 'airdrop'), once approved (by the
 * operator, or by an autonomous agent itself within the runtime's limits), run through the
 * same service as the operator's requests, with ref `proposal-<id>` (so a proposal pays at
 * most once, whichever process takes it) and the proposal's `holders` as the top holders to
 * pay. A refusal (not covered, no eligible holder, no capability, no vault key) is final:
 * recorded on the proposal (`execution`) and told on the agent's stdout; a chain that does
 * not answer leaves the proposal for the next turn.
 */
import { executeApprovedProposals, invalidProposal, payloadLamports } from "../proposals";
import { airdropAgent, executeAirdrop, type AirdropDeps } from "./service";

export const executeApprovedAirdrops = (deps: AirdropDeps, limit = 20) =>
  executeApprovedProposals(
    deps,
    "airdrop",
    async (p) => {
      const agent = await airdropAgent(deps.sql, p.mint);
      const lamports = payloadLamports(p);
      const holders = typeof p.payload.holders === "number" && Number.isInteger(p.payload.holders) && p.payload.holders > 0 ? p.payload.holders : undefined;
      if (!agent || lamports === null) throw invalidProposal();
      const r = await executeAirdrop(deps, agent, { lamports, ref: `proposal-${p.id}`, topHolders: holders }, { requestedBy: "agent", proposalId: p.id });
      return { airdropId: r.id.toString(), ref: r.ref };
    },
    limit,
  );
