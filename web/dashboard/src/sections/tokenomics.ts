/** Tokenomics (GET /v1/tokenomics): how the treasury splits its claims, buybacks and the platform token burned. */
import type { Tokenomics } from "../api";
import { el, chainId, figures, tableOr } from "../dom";
import { formatAtoms, formatBps, formatLamports, formatTime, NONE } from "../format";
import type { Rendered } from "../panel";

export function renderTokenomics(k: Tokenomics, coinName: (mint: string) => string): Rendered {
  const t = k.totals;
  return {
    node: el(
      "div",
      {},
      el("p", { "data-field": "split" }, `Each claim is split: ${k.split.vault}% to the coin's agent vault, ${k.split.creator}% to its creator, ${k.split.platformBurn}% to buy back and burn the platform token.`),
      figures([
        { label: "Fees claimed by the platform", field: "feesClaimed", value: formatLamports(t.feesClaimedLamports) },
        { label: "Sent to agent vaults", field: "sentToVaults", value: formatLamports(t.sentToVaultsLamports) },
        { label: "Paid to creators", field: "paidToCreators", value: formatLamports(t.paidToCreatorsLamports) },
        { label: "Spent on buybacks", field: "buybackSpent", value: formatLamports(t.buybackSpentLamports) },
        { label: "Buyback budget waiting", field: "buybackBudget", value: formatLamports(t.buybackBudgetLamports) },
        { label: "Platform token burned (atoms)", field: "burnedAtoms", value: formatAtoms(t.platformTokenBurnedAtoms) },
        { label: "Burned share of supply", field: "burnedShare", value: formatBps(t.burnedShareBps) },
        { label: "Platform token supply (atoms)", field: "supply", value: k.platformTokenSupply === null ? NONE : formatAtoms(k.platformTokenSupply) },
        k.platformTokenMint
          ? { label: "Platform token", field: "platformTokenMint", value: k.platformTokenMint, title: coinName(k.platformTokenMint) }
          : { label: "Platform token", field: "platformTokenMint", value: "not configured" },
      ]),
      el("h3", {}, "Recent buybacks"),
      tableOr(
        "No buybacks yet.",
        "The newest buybacks of the platform token",
        [
          { header: "Time", cell: (b) => formatTime(b.at) },
          { header: "SOL spent", numeric: true, cell: (b) => formatLamports(b.lamports) },
          { header: "Atoms bought", numeric: true, cell: (b) => formatAtoms(b.atoms) },
          { header: "Signature", cell: (b) => chainId(b.signature, "signature") },
        ],
        k.recentBuybacks,
      ),
      el("h3", {}, "Recent creator payouts"),
      tableOr(
        "No creator payouts yet.",
        "The newest payouts to creators",
        [
          { header: "Time", cell: (p) => formatTime(p.at) },
          { header: "Coin", cell: (p) => coinName(p.mint) },
          { header: "Creator", cell: (p) => chainId(p.creator, "creator") },
          { header: "SOL", numeric: true, cell: (p) => formatLamports(p.lamports) },
          { header: "Signature", cell: (p) => chainId(p.signature, "signature") },
        ],
        k.recentCreatorPayouts,
      ),
    ),
  };
}
