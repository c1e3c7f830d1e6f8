/**
 * The runtime's buyback proposals (kind 'buyback', payload `{ lamports }`), once approved (by
 * the operator, or by an autonomous agent within the runtime's 0.5 SOL limit), run through
 * the same service as the operator's requests (agents/treasury/proposals.ts): ref
 * `proposal-<id>`, the default slippage, and a burn of what it buys (the tool proposes
 * "buying back and burning"). A refusal (not covered, a full curve, no vault key) is final
 * and told on the agent's stdout; a chain that does not answer leaves it for the next turn.
 */
import { DEFAULT_SLIPPAGE_BPS } from "../../../api/treasury/buybacks";
import { executeApprovedProposals, invalidProposal, payloadLamports } from "../proposals";
import { BUYBACK, requestBuyback, type BuybackDeps } from "./service";

export const executeApprovedBuybacks = (deps: BuybackDeps, limit = 20) =>
  executeApprovedProposals(
    deps,
    BUYBACK,
    async (p) => {
      const lamports = payloadLamports(p);
      if (lamports === null) throw invalidProposal();
      const r = await requestBuyback(deps, p.mint, { lamports, slippageBps: DEFAULT_SLIPPAGE_BPS, burn: true, ref: `proposal-${p.id}` }, { requestedBy: "agent", proposalId: p.id });
      return { buybackId: r.id.toString(), ref: r.ref };
    },
    limit,
  );
