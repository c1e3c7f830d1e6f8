/** Platform totals (GET /v1/platform/stats): all time and the last 24 hours, whatever the range. */
import type { PlatformStats } from "../api";
import { figures } from "../dom";
import { formatCount, formatSol, formatUsd } from "../format";
import type { Rendered } from "../panel";

export function renderPlatform(s: PlatformStats): Rendered {
  return {
    node: figures([
      { label: "Coins", field: "coins", value: formatCount(s.coins) },
      { label: "Graduated to DAMM v2", field: "graduated", value: formatCount(s.graduated) },
      { label: "Agents live", field: "agentsLive", value: formatCount(s.agentsLive) },
      { label: "Holders (of coins)", field: "holders", value: formatCount(s.holders) },
      { label: "Trades, 24 h", field: "trades24h", value: formatCount(s.trades24h) },
      { label: "Trades, all time", field: "tradesAll", value: formatCount(s.tradesAll) },
      { label: "Volume, 24 h", field: "volume24hSol", value: formatSol(s.volume24hSol) },
      { label: "Volume, all time", field: "volumeAllSol", value: formatSol(s.volumeAllSol) },
      { label: "Fees, all time", field: "feesAllSol", value: formatSol(s.feesAllSol) },
      { label: "Market cap", field: "marketCapSol", value: formatSol(s.marketCapSol) },
      { label: "Market cap (USD)", field: "marketCapUsd", value: formatUsd(s.marketCapUsd) },
    ]),
  };
}
