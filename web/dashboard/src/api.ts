/**
 * The public reads the dashboard uses, and the shapes it reads of them (api/README.md has
 * every field). Same origin, GET only. A failure is an ApiFailure saying what failed: the
 * API's own error code and message, an answer that is not JSON, or no answer at all.
 */

export type Range = "24h" | "7d" | "30d" | "all";
export const RANGES: Range[] = ["24h", "7d", "30d", "all"];
export type Interval = "1m" | "5m" | "15m" | "1h" | "4h" | "1d";
export const INTERVALS: Interval[] = ["1m", "5m", "15m", "1h", "4h", "1d"];

export type PlatformStats = {
  coins: number;
  graduated: number;
  agentsLive: number;
  trades24h: number;
  tradesAll: number;
  volume24hSol: string;
  volumeAllSol: string;
  feesAllSol: string;
  holders: number;
  marketCapSol: string;
  marketCapUsd: number;
  solUsd: number;
  at: string;
};

export type Overview = {
  range: Range;
  totals: { agentsLive: number; trades: number; volumeLamports: string; volumeUsd: number; tradingFeesLamports: string; protocolFeesLamports: string; holders: number };
  revenue: { lamports: string; usd: number | null; series: { day: string; lamports: string; usd: number | null }[] };
  feeSplit: { creatorLamports: string; platformLamports: string; protocolLamports: string; creatorBps: number; platformBps: number };
  creatorRewards: { lamports: string; usd: number | null };
  topEarners: { mint: string; name: string; symbol: string; lamports: string }[];
  /** `signatures`: airdrops and contest prizes, every transaction (`signature` is the first) */
  recentPayouts: { kind: string; mint: string; lamports: string; at: string; signature: string; signatures?: string[] }[];
  at: string;
};

export type Tokenomics = {
  split: { vault: number; creator: number; platformBurn: number };
  totals: {
    feesClaimedLamports: string;
    sentToVaultsLamports: string;
    paidToCreatorsLamports: string;
    buybackSpentLamports: string;
    buybackBudgetLamports: string;
    platformTokenBurnedAtoms: string;
    burnedShareBps: number | null;
  };
  recentBuybacks: { at: string; lamports: string; atoms: string; signature: string }[];
  recentCreatorPayouts: { at: string; mint: string; creator: string; lamports: string; signature: string }[];
  platformTokenMint: string | null;
  platformTokenSupply: string | null;
  at: string;
};

export type Market = {
  priceSol: number;
  priceUsd: number;
  marketCapSol: string;
  marketCapUsd: number;
  volume24hSol: string;
  volume24hUsd: number;
  change24hPct: number | null;
  progressPct: number;
  graduated: boolean;
  pool: string;
  lastTradeAt: string | null;
  quote: { kind: "sol" | "stock"; symbol: string };
};

/** The unit of a coin's market figures and trade amounts: SOL, or the stock a paired coin trades against. */
export const quoteUnit = (m: Market) => (m.quote.kind === "sol" ? "SOL" : m.quote.symbol);

export type Coin = { mint: string; name: string; symbol: string; creator: string; pool: string; createdAt: string; market: Market; holders: number };
export type CoinList = { items: Coin[]; nextCursor: string | null };
export type Candle = { time: string; open: number; high: number; low: number; close: number; volumeSol: string; trades: number };
export type Candles = { mint: string; interval: Interval; items: Candle[] };
export type Trade = { signature: string; at: string; slot: number; side: "buy" | "sell"; trader: string; amountSol: string; amountToken: string; priceSol: number; amountUsd: number };
export type Trades = { items: Trade[]; nextCursor: string | null };
export type SolPrice = { usd: number; conf: number | null; publishTime: string; source: string };

export class ApiFailure extends Error {
  constructor(
    readonly path: string,
    readonly status: number | null,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
  /** One line for the page: what failed and why. */
  describe(): string {
    return this.status === null ? `${this.message} (${this.path})` : `${this.code}: ${this.message} (HTTP ${this.status}, ${this.path})`;
  }
}

/** GET a public read as JSON; any failure is an ApiFailure. `signal` cancels a read whose answer is no longer wanted. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { headers: { accept: "application/json" }, signal });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiFailure(path, null, "NETWORK", "the API could not be reached");
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiFailure(path, res.status, "BAD_ANSWER", `the answer is not JSON: ${text.slice(0, 80)}`);
  }
  if (!res.ok) {
    const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
    throw new ApiFailure(path, res.status, typeof error?.code === "string" ? error.code : "ERROR", typeof error?.message === "string" ? error.message : res.statusText);
  }
  return body as T;
}

const mintPath = (mint: string) => `/v1/tokens/${encodeURIComponent(mint)}`;

export const reads = {
  platformStats: (s?: AbortSignal) => getJson<PlatformStats>("/v1/platform/stats", s),
  overview: (range: Range, s?: AbortSignal) => getJson<Overview>(`/v1/analytics/overview?range=${range}`, s),
  tokenomics: (s?: AbortSignal) => getJson<Tokenomics>("/v1/tokenomics", s),
  solPrice: (s?: AbortSignal) => getJson<SolPrice>("/v1/price/sol", s),
  topCoins: (limit: number, s?: AbortSignal) => getJson<CoinList>(`/v1/tokens?sort=marketcap&limit=${limit}`, s),
  coin: (mint: string, s?: AbortSignal) => getJson<Coin>(mintPath(mint), s),
  candles: (mint: string, interval: Interval, s?: AbortSignal) => getJson<Candles>(`${mintPath(mint)}/candles?interval=${interval}`, s),
  trades: (mint: string, limit: number, s?: AbortSignal) => getJson<Trades>(`${mintPath(mint)}/trades?limit=${limit}`, s),
};
