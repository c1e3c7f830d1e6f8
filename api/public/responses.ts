/**
 * What the Data API answers (valibot): the spec's Agent, trade, activity item, stats and
 * configs list. The OpenAPI document and the tests that check real answers read these.
 */
import * as v from "valibot";
import { Address, Atoms, Decimal, Facts, Integer, IsoTime, Mint, Signature, Url, page } from "../openapi/primitives";
import { ACTIVITY_KINDS, CATEGORIES } from "./model";

export const TEMPLATES = ["baseline", "trader", "forecaster", "studio", "patron", "analyst", "gambler"] as const;
export const AGENT_STATES = ["forming", "asleep", "awake", "frozen"] as const;

export const Quote = v.object({
  kind: v.picklist(["sol", "stock"]),
  mint: Address,
  symbol: v.string(),
  decimals: Integer,
  uiMultiplier: v.number(),
});

export const Market = v.object({
  priceSol: v.pipe(v.number(), v.metadata({ description: "one whole coin in SOL (in the stock for paired coins)" })),
  priceUsd: v.number(),
  priceQuote: v.pipe(v.nullable(v.number()), v.metadata({ description: "paired coins only: one coin in the stock" })),
  marketCapSol: Decimal,
  marketCapUsd: v.number(),
  volume24hSol: Decimal,
  volume24hUsd: v.number(),
  change24hPct: v.pipe(v.nullable(v.number()), v.metadata({ description: "against the last trade at least 24 hours old; null while the coin is younger" })),
  holders: v.pipe(v.null(), v.metadata({ description: "always null in the Data API (the Application API's coin carries `holders`)" })),
  progressPct: v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.metadata({ description: "bonding-curve progress; 100 once graduated" })),
  graduated: v.boolean(),
  pool: v.pipe(Address, v.metadata({ description: "where the coin trades now (its DAMM v2 pool once graduated)" })),
  lastTradeAt: v.nullable(IsoTime),
  quote: Quote,
});

export const Agent = v.object({
  mint: Mint,
  name: v.pipe(v.string(), v.metadata({ description: "the agent's own name, or the coin's when it has none" })),
  coinName: v.string(),
  symbol: v.string(),
  imageUrl: Url,
  description: v.pipe(v.string(), v.metadata({ description: "written by the creator; user content" })),
  category: v.picklist(CATEGORIES),
  role: v.picklist(TEMPLATES),
  state: v.picklist(AGENT_STATES),
  status: v.picklist(["launching", "active"]),
  createdAt: IsoTime,
  creator: Address,
  agentUrl: Url,
  market: Market,
  budget: v.object({
    availableUsd: v.number(),
    wallet: v.object({ sol: Decimal, usdc: Decimal }),
  }),
  lastAction: v.nullable(v.object({ kind: v.string(), text: v.string(), at: IsoTime })),
  links: v.pipe(
    v.nullable(v.object({ website: v.optional(Url), social: v.optional(Url), telegram: v.optional(Url) })),
    v.metadata({ description: "null in lists; in a single agent the coin's links (keys omitted when the coin has none)" }),
  ),
});

export const AgentPage = page(Agent);

export const Trade = v.object({
  signature: Signature,
  mint: Mint,
  at: IsoTime,
  slot: Integer,
  side: v.picklist(["buy", "sell"]),
  trader: Address,
  amountSol: v.pipe(Decimal, v.metadata({ description: "SOL in (buy) or out (sell); stock units for paired coins" })),
  amountUsd: v.pipe(v.number(), v.metadata({ description: "at the current SOL price, not the price at trade time" })),
  amountToken: v.pipe(Decimal, v.metadata({ description: "coins bought or sold, in whole coins" })),
  priceSol: v.number(),
  priceUsd: v.number(),
  quote: v.pipe(
    v.nullable(v.object({ mint: Address, symbol: v.string(), amount: Atoms, uiAmount: v.number() })),
    v.metadata({ description: "paired coins only: the stock paid or received" }),
  ),
});

export const TradePage = page(Trade);

/** Links of a feed or activity item: its transaction(s), its post on the social network, its file. */
export const ItemLinks = v.object({
  signature: v.optional(Signature),
  signatures: v.optional(v.array(Signature)),
  postUrl: v.optional(Url),
  uri: v.optional(Url),
});

export const ActivityItem = v.object({
  id: v.string(),
  kind: v.picklist(ACTIVITY_KINDS),
  at: IsoTime,
  mint: v.pipe(v.string(), v.metadata({ description: "the agent's mint (\"\" for a platform buyback when no platform token is configured)" })),
  agent: v.nullable(v.object({ name: v.string(), symbol: v.string(), imageUrl: Url, category: v.picklist(CATEGORIES) })),
  text: v.pipe(v.string(), v.metadata({ description: "one plain sentence of what happened" })),
  body: v.pipe(v.nullable(v.string()), v.metadata({ description: "what the agent published (post, lore, decision); AI-written, user content" })),
  data: v.pipe(Facts, v.metadata({ description: "facts of that kind; amounts in lamports or atoms as strings" })),
  links: ItemLinks,
});

export const ActivityPage = page(ActivityItem);

export const DataStats = v.object({
  agents: v.object({ total: Integer, active: Integer, launching: Integer, awake: Integer }),
  trades24h: Integer,
  volume24hSol: Decimal,
  volume24hUsd: v.number(),
  marketCapSol: Decimal,
  marketCapUsd: v.number(),
  solUsd: v.number(),
  at: IsoTime,
});

const MarketCap = v.object({ quote: Decimal, usd: v.nullable(v.number()) });

export const PlatformConfig = v.object({
  address: Address,
  role: v.picklist(["launch", "stock", "legacy"]),
  acceptsLaunches: v.boolean(),
  quote: v.object({ kind: v.picklist(["sol", "stock"]), mint: Address, symbol: v.string(), decimals: Integer, ticker: v.nullable(v.string()) }),
  feeBps: v.number(),
  dynamicFee: v.boolean(),
  feeSplit: v.object({ creatorPct: v.number(), platformPct: v.number() }),
  token: v.object({ decimals: Integer, program: v.picklist(["spl-token", "token-2022"]), supply: Decimal }),
  startMarketCap: MarketCap,
  graduationMarketCap: MarketCap,
  migration: v.object({ quoteThreshold: Decimal, target: v.literal("damm-v2"), poolFeeBps: v.number(), lockedLiquidityPct: v.number() }),
  feeClaimer: Address,
});

export const ConfigsList = v.object({
  cluster: v.picklist(["mainnet", "devnet"]),
  programs: v.object({ dbc: Address, dammV2: Address }),
  launchConfig: v.nullable(Address),
  items: v.array(PlatformConfig),
  at: IsoTime,
});
