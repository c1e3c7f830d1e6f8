/**
 * One coin: its figures (GET /v1/tokens/:mint), its candles across graduation
 * (GET /v1/tokens/:mint/candles: one series over the bonding curve and DAMM v2) and its
 * latest trades (GET /v1/tokens/:mint/trades).
 */
import { quoteUnit, type Candles, type Coin, type Interval, type Trades } from "../api";
import { candleChart } from "../charts";
import { chainId, el, figures, tableOr } from "../dom";
import { formatChange, formatCount, formatDecimal, formatPrice, formatSol, formatTime, formatUsd, NONE } from "../format";
import type { Rendered } from "../panel";

export type CoinView = { coin: Coin; candles: Candles; trades: Trades; interval: Interval };

export function renderCoin({ coin, candles, trades, interval }: CoinView): Rendered {
  const m = coin.market;
  const unit = quoteUnit(m);
  const where = m.graduated ? "DAMM v2 (graduated from the bonding curve)" : `Bonding curve, ${m.progressPct}% of the way to graduation`;
  const chart = el("div", { class: "chart", id: "candle-chart", role: "img", "aria-label": `${coin.symbol} price in ${unit} per coin, ${interval} candles, with volume` });
  const node = el(
    "div",
    {},
    el("h3", { id: "coin-title" }, `${coin.name} (${coin.symbol})`),
    figures([
      { label: "Mint", field: "coin.mint", value: coin.mint },
      { label: "Where it trades", field: "coin.venue", value: where },
      { label: "Price", field: "coin.price", value: formatPrice(m.priceSol, unit), title: `${m.priceSol} ${unit}` },
      { label: "Price (USD)", field: "coin.priceUsd", value: formatUsd(m.priceUsd) },
      { label: "Market cap", field: "coin.marketCap", value: formatSol(m.marketCapSol, unit) },
      { label: "Volume 24 h", field: "coin.volume24h", value: formatSol(m.volume24hSol, unit) },
      { label: "Change 24 h", field: "coin.change24h", value: formatChange(m.change24hPct) },
      { label: "Holders", field: "coin.holders", value: formatCount(coin.holders) },
      { label: "Last trade", field: "coin.lastTrade", value: m.lastTradeAt ? formatTime(m.lastTradeAt) : NONE },
    ]),
    el("h4", {}, `Candles (${interval}, UTC)`),
    candles.items.length === 0 ? el("p", { class: "empty" }, "No trades in this window.") : chart,
    el("h4", {}, "Latest trades"),
    tableOr(
      "No trades yet.",
      `The latest trades of ${coin.symbol}, newest first`,
      [
        { header: "Time", cell: (t) => formatTime(t.at) },
        { header: "Side", cell: (t) => t.side },
        { header: unit, numeric: true, cell: (t) => formatSol(t.amountSol, unit) },
        { header: "Coins", numeric: true, cell: (t) => formatDecimal(t.amountToken) },
        { header: "Price", numeric: true, cell: (t) => formatPrice(t.priceSol, unit) },
        { header: "Trader", cell: (t) => chainId(t.trader, "trader") },
        { header: "Signature", cell: (t) => chainId(t.signature, "signature") },
      ],
      trades.items,
      (t) => ({ class: `side-${t.side}` }),
    ),
  );
  return { node, mount: candles.items.length === 0 ? undefined : () => candleChart(chart, candles.items) };
}
