/**
 * What the Application API's public reads answer (valibot): the coin, candles, the feed
 * item, platform stats, the analytics overview and tokenomics (api/README.md defines
 * every figure). The OpenAPI document and the tests that check real answers read these.
 */
import * as v from "valibot";
import { Address, Atoms, Decimal, Facts, Integer, IsoTime, Mint, Signature, Url, page } from "../openapi/primitives";
import { ItemLinks, Market, TEMPLATES } from "../public/responses";
import { FEED_KINDS, INTERVALS, RANGES } from "./model";

const Presence = v.picklist(["influencer", "quiet"]);

export const Coin = v.object({
  mint: Mint,
  name: v.pipe(v.string(), v.metadata({ description: "the coin's name" })),
  symbol: v.string(),
  imageUrl: Url,
  description: v.string(),
  creator: Address,
  pool: v.pipe(Address, v.metadata({ description: "the pool the coin was launched in (DBC, fixed); `market.pool` is where it trades now" })),
  createdAt: IsoTime,
  market: Market,
  holders: v.pipe(Integer, v.metadata({ description: "wallets holding a positive balance (pool vaults and the incinerator left out); 0 until counted" })),
  agent: v.pipe(
    v.nullable(v.object({ name: v.pipe(v.string(), v.metadata({ description: "\"\" when the operator gave none: show the coin name" })), template: v.picklist(TEMPLATES), presence: Presence, traits: v.array(v.string()) })),
    v.metadata({ description: "null while the agent is still forming" }),
  ),
});

export const CoinPage = page(Coin);

const UsdOrNull = v.pipe(v.nullable(v.number()), v.metadata({ description: "USD at the SOL price of each trade's own minute; null before any price was recorded" }));

export const Candle = v.object({
  time: IsoTime,
  open: v.number(),
  high: v.number(),
  low: v.number(),
  close: v.number(),
  volumeSol: Decimal,
  trades: Integer,
  openUsd: UsdOrNull,
  highUsd: UsdOrNull,
  lowUsd: UsdOrNull,
  closeUsd: UsdOrNull,
  volumeUsd: UsdOrNull,
});

export const Candles = v.object({
  mint: Mint,
  interval: v.picklist(Object.keys(INTERVALS) as (keyof typeof INTERVALS)[]),
  items: v.pipe(v.array(Candle), v.metadata({ description: "oldest first; intervals without trades are left out" })),
});

export const FeedItem = v.object({
  id: v.string(),
  kind: v.picklist(FEED_KINDS),
  at: IsoTime,
  mint: v.string(),
  agent: v.nullable(v.object({ name: v.string(), symbol: v.string(), imageUrl: Url, template: v.picklist(TEMPLATES), presence: Presence })),
  body: v.nullable(v.string()),
  data: Facts,
  links: ItemLinks,
});

export const FeedPage = page(FeedItem);

export const PlatformStats = v.object({
  coins: Integer,
  graduated: Integer,
  agentsLive: Integer,
  trades24h: Integer,
  tradesAll: Integer,
  volume24hSol: Decimal,
  volumeAllSol: Decimal,
  feesAllSol: Decimal,
  holders: Integer,
  marketCapSol: Decimal,
  marketCapUsd: v.number(),
  solUsd: v.number(),
  at: IsoTime,
});

export const AnalyticsOverview = v.object({
  range: v.picklist(RANGES),
  totals: v.object({
    agentsLive: Integer,
    trades: Integer,
    volumeLamports: Atoms,
    volumeUsd: v.number(),
    tradingFeesLamports: Atoms,
    protocolFeesLamports: Atoms,
    holders: Integer,
  }),
  revenue: v.object({
    lamports: Atoms,
    usd: v.nullable(v.number()),
    series: v.array(v.object({ day: v.pipe(v.string(), v.isoDate()), lamports: Atoms, usd: v.nullable(v.number()) })),
  }),
  feeSplit: v.object({ creatorLamports: Atoms, platformLamports: Atoms, protocolLamports: Atoms, creatorBps: Integer, platformBps: Integer }),
  creatorRewards: v.object({ lamports: Atoms, usd: v.nullable(v.number()) }),
  topEarners: v.array(v.object({ mint: Mint, name: v.string(), symbol: v.string(), lamports: Atoms })),
  recentPayouts: v.array(
    v.object({
      kind: v.picklist(["fee_claim", "creator_fee_claim", "creator_payout", "vault_payout", "airdrop", "contest_prize"]),
      mint: v.string(),
      lamports: Atoms,
      at: IsoTime,
      signature: v.pipe(Signature, v.metadata({ description: "the transaction that paid it (airdrop, contest_prize: the first of `signatures`)" })),
      signatures: v.optional(
        v.pipe(v.array(Signature), v.metadata({ description: "airdrop and contest_prize only: every transaction that paid it, in batch order" })),
      ),
    }),
  ),
  at: IsoTime,
});

export const Tokenomics = v.object({
  split: v.pipe(v.object({ vault: v.number(), creator: v.number(), platformBurn: v.number() }), v.metadata({ description: "TOKENOMICS_SPLIT, percent" })),
  totals: v.object({
    feesClaimedLamports: Atoms,
    sentToVaultsLamports: Atoms,
    paidToCreatorsLamports: Atoms,
    buybackSpentLamports: Atoms,
    buybackBudgetLamports: Atoms,
    platformTokenBurnedAtoms: Atoms,
    burnedShareBps: v.pipe(v.nullable(Integer), v.metadata({ description: "null while the supply is unknown" })),
  }),
  recentBuybacks: v.array(v.object({ at: IsoTime, lamports: Atoms, atoms: Atoms, signature: Signature })),
  recentCreatorPayouts: v.array(v.object({ at: IsoTime, mint: Mint, creator: Address, lamports: Atoms, signature: Signature })),
  platformTokenMint: v.nullable(Mint),
  platformTokenSupply: v.nullable(Atoms),
  at: IsoTime,
});
