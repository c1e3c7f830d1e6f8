/**
 * The dashboard page's entry (bundled by api/dashboard/bundle.ts). State lives in the URL
 * (`?range=7d&coin=<mint>&interval=1h`), so a view can be linked; every section loads on its
 * own and shows its own loading, empty and failed states (panel.ts).
 */
import { ApiFailure, INTERVALS, RANGES, reads, type Coin, type Interval, type Range } from "./api";
import { byId, el } from "./dom";
import { formatTime, formatUsd } from "./format";
import { Panel } from "./panel";
import { renderCoin } from "./sections/coin";
import { renderTopCoins, venueOf } from "./sections/coins";
import { renderPlatform } from "./sections/platform";
import { RANGE_LABELS, renderRange } from "./sections/range";
import { renderTokenomics } from "./sections/tokenomics";

/** Coins offered in the coin picker (the API's largest page); the table shows the first TOP_COINS. */
const PICKER_COINS = 50;
const TOP_COINS = 10;
const TRADES = 20;

const oneOf = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T => (allowed.includes(value as T) ? (value as T) : fallback);
const isMint = (s: string | null): s is string => s !== null && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(s);

const query = new URLSearchParams(location.search);
const state: { range: Range; interval: Interval; coin: string | null } = {
  range: oneOf(query.get("range"), RANGES, "24h"),
  interval: oneOf(query.get("interval"), INTERVALS, "1h"),
  coin: isMint(query.get("coin")) ? query.get("coin") : null,
};

function saveState() {
  const q = new URLSearchParams({ range: state.range, interval: state.interval, ...(state.coin ? { coin: state.coin } : {}) });
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

const panels = {
  platform: new Panel(byId("platform"), "the platform totals"),
  range: new Panel(byId("range"), "the figures of this range"),
  tokenomics: new Panel(byId("tokenomics"), "tokenomics"),
  topCoins: new Panel(byId("top-coins"), "the top coins"),
  coin: new Panel(byId("coin"), "this coin"),
};
const coinSelect = byId<HTMLSelectElement>("coin-select");
const intervalSelect = byId<HTMLSelectElement>("interval-select");

/** Names of the coins the page knows (from the coin list and top earners), for tables that carry only a mint. */
const names = new Map<string, string>();
const coinName = (mint: string) => names.get(mint) ?? (mint ? `${mint.slice(0, 4)}…${mint.slice(-4)}` : "—");
const remember = (coins: { mint: string; name: string; symbol: string }[]) => coins.forEach((c) => names.set(c.mint, `${c.name} (${c.symbol})`));

/** Settles (never fails) once the coin list has loaded or failed: the coin view and tables that name coins wait for it. */
let coinsKnown: Promise<unknown> = Promise.resolve();

/** The coin list; on arrival it names coins, fills the picker and picks the first coin when none was asked for. */
function readCoins(signal: AbortSignal) {
  const list = reads.topCoins(PICKER_COINS, signal).then((l) => {
    remember(l.items);
    if (!state.coin && l.items[0]) state.coin = l.items[0].mint;
    fillPicker(l.items);
    saveState();
    return l;
  });
  coinsKnown = list.catch(() => null);
  return list;
}

function loadCoins() {
  void panels.topCoins.load(readCoins, (list) => renderTopCoins(list.items.slice(0, TOP_COINS), (mint) => selectCoin(mint, true)));
}

function fillPicker(coins: Coin[]) {
  coinSelect.replaceChildren(...coins.map((c) => el("option", { value: c.mint }, `${c.name} (${c.symbol}) · ${venueOf(c)}`)));
  if (state.coin && !coins.some((c) => c.mint === state.coin)) coinSelect.append(el("option", { value: state.coin }, coinName(state.coin)));
  if (state.coin) coinSelect.value = state.coin;
  coinSelect.disabled = coins.length === 0 && !state.coin;
}

function selectCoin(mint: string, focus: boolean) {
  state.coin = mint;
  if (!Array.from(coinSelect.options).some((o) => o.value === mint)) coinSelect.append(el("option", { value: mint }, coinName(mint)));
  coinSelect.value = mint;
  saveState();
  loadCoin();
  if (focus) byId("coin-heading").focus();
}

function loadCoin() {
  const interval = state.interval;
  void panels.coin.load(
    async (s) => {
      await coinsKnown;
      const mint = state.coin;
      if (!mint) return null;
      const [coin, candles, trades] = await Promise.all([reads.coin(mint, s), reads.candles(mint, interval, s), reads.trades(mint, TRADES, s)]);
      return { coin, candles, trades, interval };
    },
    (view) => {
      if (!view) return { empty: "No coin to show yet." };
      remember([view.coin]);
      return renderCoin(view);
    },
  );
}

function loadRange() {
  const range = state.range;
  byId("range-label").textContent = RANGE_LABELS[range];
  void panels.range.load(
    async (s) => {
      const [overview] = await Promise.all([reads.overview(range, s), coinsKnown]);
      return overview;
    },
    (o) => {
      remember(o.topEarners);
      return renderRange(o, coinName);
    },
  );
}

function loadSolPrice() {
  const out = byId("sol-price");
  out.textContent = "SOL price: loading…";
  reads.solPrice().then(
    (p) => (out.textContent = `SOL ${formatUsd(p.usd)} (${p.source}, ${formatTime(p.publishTime)})`),
    (e) => (out.textContent = `SOL price unavailable: ${e instanceof ApiFailure ? e.describe() : String(e)}`),
  );
}

function loadAll() {
  loadSolPrice();
  loadCoins();
  void panels.platform.load((s) => reads.platformStats(s), renderPlatform);
  loadRange();
  void panels.tokenomics.load(
    async (s) => {
      const [k] = await Promise.all([reads.tokenomics(s), coinsKnown]);
      return k;
    },
    (k) => renderTokenomics(k, coinName),
  );
  loadCoin();
}

for (const input of Array.from(document.querySelectorAll<HTMLInputElement>('input[name="range"]'))) {
  input.checked = input.value === state.range;
  input.addEventListener("change", () => {
    state.range = oneOf(input.value, RANGES, "24h");
    saveState();
    loadRange();
  });
}
intervalSelect.value = state.interval;
intervalSelect.addEventListener("change", () => {
  state.interval = oneOf(intervalSelect.value, INTERVALS, "1h");
  saveState();
  loadCoin();
});
coinSelect.addEventListener("change", () => selectCoin(coinSelect.value, false));
byId("refresh").addEventListener("click", loadAll);

saveState();
loadAll();
