/**
 * Agents of the Data API: the list (filter, sort, keyset pagination) and one agent.
 * The directory and market come from ClickHouse; what the registry of record
 * holds (creator, budget, links, last action) from Postgres, for the page only.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { Sql } from "../../infra/postgres";
import type { SolPriceService } from "../../infra/sol-price";
import { WSOL_MINT, type ConfigRegistry, type PlatformConfig } from "../../ingest/contract/configs";
import { formatUnits, lamportsToUsd, priceFromSqrt } from "../../ingest/contract/market-math";
import { readMarketRows, type MarketRow } from "./market-sql";
import type { MarketBoard } from "./market-board";
import { decodeCursor, encodeCursor, CURSOR_POSITIONS } from "./model";
import { notFound } from "../errors";

export type PublicDeps = {
  ch: ClickHouse; sql: Sql; configs: ConfigRegistry; price: SolPriceService; publicBaseUrl: string; board: MarketBoard;
  /** the treasury and the platform token (analytics, tokenomics, payout feed items); absent = none configured */
  treasury?: TreasuryDeps;
};

/** What the treasury reads need from configuration (infra/config.ts) and the chain. */
export type TreasuryDeps = {
  /** TREASURY_ADDRESS (the configs' feeClaimer addresses belong to the treasury too) */
  address: string | null;
  /** PLATFORM_TOKEN_MINT */
  platformTokenMint: string | null;
  /** TOKENOMICS_SPLIT, percent */
  split: Readonly<{ vault: number; creator: number; platformBurn: number }>;
  /** the current supply of a token in atoms, over RPC (cached by the caller); null = no RPC configured */
  tokenSupply: ((mint: string) => Promise<bigint | null>) | null;
};

export type Sort = "new" | "marketcap" | "trending" | "volume";
const SORT_VALUE: Record<Sort, (r: MarketRow) => bigint> = {
  new: (r) => BigInt(r.createdMs),
  marketcap: (r) => r.marketCap,
  trending: (r) => r.volume24h,
  volume: (r) => r.volumeAll,
};

export type RegistryRow = {
  mint: string; creator: string; vault: string; image_url: string; description: string; template: string;
  status: string; state: string; available_usd: number; last_action: { kind: string; text: string; at: string } | null;
  links: Record<string, string>; dbc_pool: string; config: string; hidden: boolean;
  /** the agent's own name; null when the operator gave none */
  name: string | null; presence: string; traits: string[];
  lamports: bigint | null; usdc_atoms: bigint | null;
};


/** Newest/biggest first; ties broken by mint, descending, so pages never overlap. */
export async function listAgents(deps: PublicDeps, q: { sort: Sort; category?: string; q?: string; limit: number; cursor?: string }) {
  const { rows, nextCursor } = await boardPage(deps, "agents", q);
  return { items: await toAgents(deps, rows, false), nextCursor };
}

/**
 * One page of public coins from the market board: filtered (`category`, `q`: coin name,
 * ticker, agent name or an exact mint), sorted, after the cursor. `list` names the list
 * the cursor belongs to (a cursor of one list is refused by another).
 */
export async function boardPage(deps: PublicDeps, list: string, q: { sort: Sort; category?: string; q?: string; limit: number; cursor?: string }) {
  const position = decodeCursor(`${list}:${q.sort}`, q.cursor, CURSOR_POSITIONS.agents);
  const value = SORT_VALUE[q.sort];
  const needle = q.q?.toLowerCase();
  const after = position ? { v: BigInt(position[0]), m: position[1] } : null;
  const matches = (await deps.board.rows()).filter(
    (r) =>
      !r.hidden &&
      (!q.category || r.category === q.category) &&
      (!needle || r.mint === q.q || r.searchText.includes(needle)) &&
      (!after || value(r) < after.v || (value(r) === after.v && r.mint < after.m)),
  );
  const page = topN(matches, q.limit + 1, (a, b) => {
    const va = value(a), vb = value(b);
    return va === vb ? (a.mint < b.mint ? 1 : a.mint > b.mint ? -1 : 0) : va < vb ? 1 : -1;
  });
  const rows = page.slice(0, q.limit);
  const last = rows.at(-1);
  return { rows, nextCursor: page.length > q.limit && last ? encodeCursor(`${list}:${q.sort}`, [value(last).toString(), last.mint]) : null };
}

/** The first n of items under cmp, without sorting everything. */
function topN<T>(items: T[], n: number, cmp: (a: T, b: T) => number): T[] {
  if (items.length <= n * 4) return items.sort(cmp).slice(0, n);
  const top: T[] = [];
  for (const item of items) {
    if (top.length < n) {
      top.push(item);
      if (top.length === n) top.sort(cmp);
    } else if (cmp(item, top[n - 1]!) < 0) {
      let i = n - 1;
      while (i > 0 && cmp(item, top[i - 1]!) < 0) i--;
      top.splice(i, 0, item);
      top.pop();
    }
  }
  return top.length < n ? top.sort(cmp) : top;
}

/**
 * One agent, from the market board (as fresh as the agents list, within the 5 s the
 * spec lets a cache keep it) or, for a coin the board has not seen yet, read directly.
 */
export async function getAgent(deps: PublicDeps, mint: string) {
  const [agent] = await toAgents(deps, [await publicMarketRow(deps, mint)], true);
  if (!agent) throw notFound(`no public agent with mint ${mint}`);
  return agent;
}

/** A public coin's market row: from the board, or read directly for a coin the board has not seen yet; 404 when hidden or unknown. */
export async function publicMarketRow(deps: PublicDeps, mint: string): Promise<MarketRow> {
  const row = (await deps.board.get(mint)) ?? (await readMarketRows(deps.ch, mint))[0];
  if (!row || row.hidden) throw notFound(`no public agent with mint ${mint}`);
  return row;
}

/** These coins as Data API agents, in the order given; hidden coins and coins not in the directory yet are left out. */
export async function agentsOf(deps: PublicDeps, mints: string[]) {
  const rows = await Promise.all(mints.map(async (m) => (await deps.board.get(m)) ?? (await readMarketRows(deps.ch, m))[0]));
  return toAgents(deps, rows.filter((r): r is MarketRow => r !== undefined && !r.hidden), false);
}

/** The registry of record's rows (Postgres) of these coins, with their vaults' balances. */
export async function registryRows(deps: PublicDeps, mints: string[]): Promise<Map<string, RegistryRow>> {
  const rows = await deps.sql<RegistryRow[]>`
      SELECT a.mint, a.creator, a.vault, a.image_url, a.description, a.template, a.status, a.state, a.available_usd,
             a.last_action, a.links, a.dbc_pool, a.config, a.hidden, a.name, a.presence, a.traits, w.lamports, w.usdc_atoms
      FROM agents a LEFT JOIN wallet_balances w ON w.address = a.vault
      WHERE a.mint IN ${deps.sql(mints)}`;
  return new Map(rows.map((r) => [r.mint, r]));
}

/** SOL/USD now, else the last known price, else 0 (USD fields then read 0). */
export async function solUsdNow(deps: Pick<PublicDeps, "price">): Promise<number> {
  return ((await deps.price.current()) ?? deps.price.lastKnown())?.usd ?? 0;
}

async function toAgents(deps: PublicDeps, rows: MarketRow[], withLinks: boolean) {
  if (rows.length === 0) return [];
  const [reg, solUsd] = await Promise.all([registryRows(deps, rows.map((r) => r.mint)), solUsdNow(deps)]);
  return rows.flatMap((row) => {
    const a = reg.get(row.mint);
    if (!a || a.hidden) return [];
    return [
      {
        mint: row.mint,
        name: row.name || row.coin_name,
        coinName: row.coin_name,
        symbol: row.symbol,
        imageUrl: a.image_url,
        description: a.description,
        category: row.category,
        role: a.template,
        state: a.state,
        status: a.status,
        createdAt: new Date(row.createdMs).toISOString(),
        creator: a.creator,
        agentUrl: `${deps.publicBaseUrl}/agents/${row.mint}`,
        market: marketOf(deps.configs, row, a, solUsd),
        budget: {
          availableUsd: a.available_usd,
          wallet: {
            sol: a.lamports === null ? "0" : formatUnits(BigInt(a.lamports), 9),
            usdc: a.usdc_atoms === null ? "0" : formatUnits(BigInt(a.usdc_atoms), 6),
          },
        },
        lastAction: a.last_action,
        links: withLinks ? cleanLinks(a.links) : null,
      },
    ];
  });
}

/** An agent's (and a coin's) `market` object: one function, so both APIs give the same figures. */
export function marketOf(configs: ConfigRegistry, row: MarketRow, a: Pick<RegistryRow, "config" | "dbc_pool">, solUsd: number) {
  const cfg = configs.byAddress.get(a.config);
  const quoteDecimals = cfg?.quote.decimals ?? 9;
  const priceSol = row.tradedPriceSol ?? priceFromSqrt(row.sqrtPrice, row.decimals, quoteDecimals);
  const mcapLamports = row.marketCap;
  const volume24h = row.volume24h;
  const dammPool = row.dammPool;
  const threshold = row.migrationThreshold || cfg?.migrationQuoteThreshold || 0n;
  const reserve = row.venue === "dbc" ? row.quoteReserve : 0n;
  const progressPct = dammPool ? 100 : threshold > 0n ? Math.min(100, Number((reserve * 10000n) / threshold) / 100) : 0;
  const change24hPct = row.priceDayAgo ? round((priceSol / row.priceDayAgo - 1) * 100, 4) : null;
  return {
    priceSol,
    priceUsd: priceSol * solUsd,
    priceQuote: cfg?.quote.kind === "stock" ? priceSol : null,
    marketCapSol: formatUnits(mcapLamports, 9),
    marketCapUsd: lamportsToUsd(mcapLamports, solUsd),
    volume24hSol: formatUnits(volume24h, 9),
    volume24hUsd: lamportsToUsd(volume24h, solUsd),
    change24hPct,
    holders: null,
    progressPct,
    graduated: Boolean(dammPool),
    pool: dammPool ?? a.dbc_pool,
    lastTradeAt: row.lastAt ? new Date(row.lastAt * 1000).toISOString() : null,
    quote: quoteOf(cfg),
  };
}

function quoteOf(cfg: PlatformConfig | undefined) {
  const q = cfg?.quote ?? { kind: "sol" as const, mint: WSOL_MINT, symbol: "SOL", decimals: 9 };
  return { kind: q.kind, mint: q.mint, symbol: q.symbol, decimals: q.decimals, uiMultiplier: 1 };
}

function cleanLinks(links: Record<string, string> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ["website", "social", "telegram"]) {
    const v = links?.[key];
    if (typeof v === "string" && v.startsWith("https://")) out[key] = v;
  }
  return out;
}

/** ClickHouse DateTime text ("2026-01-01 00:00:00" or ISO) → ISO 8601 UTC. */
export function toIso(value: string): string {
  if (value.includes("T")) return new Date(value.endsWith("Z") ? value : value + "Z").toISOString();
  return new Date(value.replace(" ", "T") + "Z").toISOString();
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
