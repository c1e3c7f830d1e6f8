/**
 * The two charts, drawn with TradingView's lightweight-charts: revenue per day (a histogram)
 * and a coin's candles with their volume. Charts are for the eye; every figure they show is
 * also in a table or figure list beside them, written exactly.
 */
import { CandlestickSeries, ColorType, HistogramSeries, createChart, type IChartApi, type UTCTimestamp } from "lightweight-charts";
import type { Candle } from "./api";
import { lamportsForChart } from "./format";

/** Colours the browser test looks for in the canvas: a chart that drew data has pixels of them. */
export const COLORS = { up: "#1b9e77", down: "#d95f02", revenue: "#3b6fd8", volume: "rgba(110, 110, 140, 0.45)", text: "#2b2b33", grid: "#ececf2" };

/** Axis and crosshair labels: four significant digits, and the float noise below the scale's step shown as 0. */
const axisFormatter = (minMove: number) => (p: number) => (Math.abs(p) < minMove / 2 ? 0 : p).toLocaleString("en-US", { maximumSignificantDigits: 4 });

function baseChart(container: HTMLElement): IChartApi {
  return createChart(container, {
    autoSize: true,
    // the logo injects a <style> element, which the page's Content-Security-Policy refuses; the
    // attribution the licence asks for (its NOTICE and a link to tradingview.com) is in the page's footer
    layout: { background: { type: ColorType.Solid, color: "#ffffff" }, textColor: COLORS.text, attributionLogo: false },
    grid: { vertLines: { color: COLORS.grid }, horzLines: { color: COLORS.grid } },
    localization: { locale: "en-US" },
    timeScale: { borderVisible: false },
    rightPriceScale: { borderVisible: false },
  });
}

/** Revenue per UTC day in SOL. */
export function revenueChart(container: HTMLElement, series: { day: string; lamports: string }[]): () => void {
  const chart = baseChart(container);
  const bars = chart.addSeries(HistogramSeries, { color: COLORS.revenue, priceFormat: { type: "custom", formatter: axisFormatter(1e-9), minMove: 1e-9 } });
  bars.setData(series.map((d) => ({ time: d.day, value: lamportsForChart(d.lamports) })));
  chart.timeScale().fitContent();
  container.dataset.points = String(series.length);
  return () => chart.remove();
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000) as UTCTimestamp;

/** A coin's candles (SOL per whole coin) and volume (SOL), one series across graduation. */
export function candleChart(container: HTMLElement, candles: Candle[]): () => void {
  const chart = baseChart(container);
  // prices of a few billionths of a SOL: move by 1e-12 so the scale does not round them to 0
  const price = chart.addSeries(CandlestickSeries, {
    upColor: COLORS.up,
    downColor: COLORS.down,
    borderUpColor: COLORS.up,
    borderDownColor: COLORS.down,
    wickUpColor: COLORS.up,
    wickDownColor: COLORS.down,
    priceFormat: { type: "custom", formatter: axisFormatter(1e-12), minMove: 1e-12 },
  });
  price.setData(candles.map((c) => ({ time: seconds(c.time), open: c.open, high: c.high, low: c.low, close: c.close })));
  const volume = chart.addSeries(HistogramSeries, { color: COLORS.volume, priceScaleId: "", priceFormat: { type: "volume" } });
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  volume.setData(candles.map((c) => ({ time: seconds(c.time), value: Number(c.volumeSol) })));
  chart.timeScale().fitContent();
  container.dataset.points = String(candles.length);
  return () => chart.remove();
}
