/**
 * The chosen range (GET /v1/analytics/overview?range=): volume and fees, the fee split,
 * revenue per day (chart and table), creator rewards, top earners and recent payouts.
 */
import type { Overview, Range } from "../api";
import { revenueChart } from "../charts";
import { chainId, el, figures, table, tableOr } from "../dom";
import { formatBps, formatCount, formatLamports, formatTime, formatUsd, shareBps } from "../format";
import { mountAll, type Rendered } from "../panel";

export const RANGE_LABELS: Record<Range, string> = { "24h": "last 24 hours", "7d": "last 7 days", "30d": "last 30 days", all: "all time" };

const PAYOUT_KINDS: Record<string, string> = {
  fee_claim: "Platform fee claim",
  creator_fee_claim: "Creator fee claim",
  creator_payout: "Creator payout",
  vault_payout: "Vault payout",
  airdrop: "Airdrop to holders",
  contest_prize: "Contest prizes",
};

export function renderRange(o: Overview, coinName: (mint: string) => string): Rendered {
  const t = o.totals;
  const mounts: (() => () => void)[] = [];
  const node = el(
    "div",
    {},
    el("h3", {}, "Volume and fees"),
    figures([
      { label: "Trades", field: "range.trades", value: formatCount(t.trades) },
      { label: "Volume", field: "range.volume", value: formatLamports(t.volumeLamports) },
      { label: "Volume (USD, at today's price)", field: "range.volumeUsd", value: formatUsd(t.volumeUsd) },
      { label: "Trading fees", field: "range.tradingFees", value: formatLamports(t.tradingFeesLamports) },
      { label: "Protocol fees (Meteora)", field: "range.protocolFees", value: formatLamports(t.protocolFeesLamports) },
      { label: "Agents live", field: "range.agentsLive", value: formatCount(t.agentsLive) },
    ]),
    feeSplit(o.feeSplit),
    revenue(o.revenue, mounts),
    el("h3", {}, "Creator rewards (all time)"),
    figures([
      { label: "Paid to creators", field: "creatorRewards", value: formatLamports(o.creatorRewards.lamports) },
      { label: "In USD at each payment", field: "creatorRewardsUsd", value: formatUsd(o.creatorRewards.usd) },
    ]),
    el("h3", {}, "Top earners"),
    tableOr(
      "No creator fees in this range.",
      "Coins whose creators earned the most trading fees in the range",
      [
        { header: "Coin", rowHeader: true, cell: (e) => `${e.name} (${e.symbol})` },
        { header: "Creator fees", numeric: true, cell: (e) => formatLamports(e.lamports) },
      ],
      o.topEarners,
      (e) => ({ "data-mint": e.mint }),
    ),
    el("h3", {}, "Recent payouts"),
    tableOr(
      "No fee claims or payouts yet.",
      "The newest fee claims, payouts, airdrops and contest prizes",
      [
        { header: "Time", cell: (p) => formatTime(p.at) },
        { header: "Kind", cell: (p) => PAYOUT_KINDS[p.kind] ?? p.kind },
        { header: "Coin", cell: (p) => coinName(p.mint) },
        { header: "Amount", numeric: true, cell: (p) => formatLamports(p.lamports) },
        { header: "Signature", cell: payoutSignatures },
      ],
      o.recentPayouts,
    ),
  );
  return { node, mount: mountAll(mounts) };
}

/** The transaction; an airdrop or contest paid in several names the first and how many more (all of them in its title). */
function payoutSignatures(p: Overview["recentPayouts"][number]): Node {
  const more = (p.signatures?.length ?? 1) - 1;
  if (more < 1) return chainId(p.signature, "signature");
  return el("span", { "data-field": "signatures", title: p.signatures!.join("\n") }, chainId(p.signature, "signature"), ` +${more} more`);
}

function feeSplit(f: Overview["feeSplit"]): Node {
  const total = (BigInt(f.creatorLamports) + BigInt(f.platformLamports) + BigInt(f.protocolLamports)).toString();
  const parts = [
    { key: "creator", label: "Creators", lamports: f.creatorLamports },
    { key: "platform", label: "Platform", lamports: f.platformLamports },
    { key: "protocol", label: "Protocol (Meteora)", lamports: f.protocolLamports },
  ];
  const bar = el("div", { class: "split-bar", role: "img", "aria-label": parts.map((p) => `${p.label} ${formatBps(shareBps(p.lamports, total))}`).join(", ") });
  for (const p of parts) {
    const seg = el("span", { class: `seg seg-${p.key}` });
    seg.style.width = `${shareBps(p.lamports, total) / 100}%`; // CSSOM, which the page's CSP allows
    bar.append(seg);
  }
  return el(
    "div",
    { class: "fee-split" },
    el("h3", {}, "Fee split"),
    el("p", {}, `Configured on the launch config: creators ${formatBps(f.creatorBps)}, platform ${formatBps(f.platformBps)} of trading fees.`),
    bar,
    table(
      "Trading and protocol fees in the range, by who earns them",
      [
        { header: "Side", rowHeader: true, cell: (p) => p.label },
        { header: "Amount", numeric: true, cell: (p) => el("span", { "data-field": `feeSplit.${p.key}` }, formatLamports(p.lamports)) },
        { header: "Share", numeric: true, cell: (p) => formatBps(shareBps(p.lamports, total)) },
      ],
      parts,
    ),
  );
}

function revenue(r: Overview["revenue"], mounts: (() => () => void)[]): Node {
  const head = [
    el("h3", {}, "Revenue per day"),
    figures([
      { label: "Platform revenue (claimed into the treasury)", field: "revenue", value: formatLamports(r.lamports) },
      { label: "In USD at each claim", field: "revenueUsd", value: formatUsd(r.usd) },
    ]),
  ];
  if (r.series.length === 0) return el("div", {}, ...head, el("p", { class: "empty" }, "No revenue in this range."));
  const chart = el("div", { class: "chart", id: "revenue-chart", role: "img", "aria-label": "Revenue per UTC day in SOL; the table below has the same figures" });
  mounts.push(() => revenueChart(chart, r.series));
  return el(
    "div",
    {},
    ...head,
    chart,
    table(
      "Revenue per UTC day",
      [
        { header: "Day", rowHeader: true, cell: (d) => d.day },
        { header: "SOL", numeric: true, cell: (d) => formatLamports(d.lamports) },
        { header: "USD at claim", numeric: true, cell: (d) => formatUsd(d.usd) },
      ],
      r.series,
      (d) => ({ "data-day": d.day }),
    ),
  );
}
