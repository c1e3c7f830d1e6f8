/** The top coins by market cap (GET /v1/tokens?sort=marketcap), each with a button that opens it in the coin view. */
import { quoteUnit, type Coin } from "../api";
import { el, table } from "../dom";
import { formatChange, formatCount, formatPrice, formatSol } from "../format";
import type { Rendered } from "../panel";

export const venueOf = (c: Coin) => (c.market.graduated ? "DAMM v2" : `Curve ${c.market.progressPct}%`);

export function renderTopCoins(coins: Coin[], view: (mint: string) => void): Rendered {
  if (coins.length === 0) return { empty: "No coins yet." };
  return {
    node: table(
      "Coins by market cap",
      [
        { header: "#", numeric: true, cell: (c) => String(coins.indexOf(c) + 1) },
        { header: "Coin", rowHeader: true, cell: (c) => `${c.name} (${c.symbol})` },
        { header: "Price", numeric: true, cell: (c) => formatPrice(c.market.priceSol, quoteUnit(c.market)) },
        { header: "Market cap", numeric: true, cell: (c) => formatSol(c.market.marketCapSol, quoteUnit(c.market)) },
        { header: "Volume 24 h", numeric: true, cell: (c) => formatSol(c.market.volume24hSol, quoteUnit(c.market)) },
        { header: "Change 24 h", numeric: true, cell: (c) => formatChange(c.market.change24hPct) },
        { header: "Holders", numeric: true, cell: (c) => formatCount(c.holders) },
        { header: "Where it trades", cell: venueOf },
        {
          header: "Chart",
          cell: (c) => {
            const button = el("button", { type: "button", "aria-label": `View ${c.name} (${c.symbol})` }, "View");
            button.addEventListener("click", () => view(c.mint));
            return button;
          },
        },
      ],
      coins,
      (c) => ({ "data-mint": c.mint }),
    ),
  };
}
